package dev.fairway.control;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.VertxTestBase;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Hot reload of conf/config.json under load, with a request in flight, and with broken JSON. */
class ReloadIT extends VertxTestBase {
  private static final String TOKEN = "Bearer test-token-0123456789";
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

  @BeforeEach
  void setUp() {
    logs.start();
    ((Logger) LoggerFactory.getLogger(ConfigReloader.class)).addAppender(logs);
  }

  @AfterEach
  void tearDown() throws Exception {
    ((Logger) LoggerFactory.getLogger(ConfigReloader.class)).detachAppender(logs);
  }

  private Future<String> call(HttpMethod method, int port, String uri, String auth, String body) {
    RequestOptions o = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(uri);
    if (auth != null) {
      o.putHeader("Authorization", auth);
    }
    return TestClient.onLoop(vertx, () -> client.request(o)
        .compose(r -> body == null ? r.send() : r.send(body))
        .compose((HttpClientResponse resp) -> resp.body().map(b -> resp.statusCode() + " " + b)));
  }

  private static TestBackend named(Vertx vertx, String name) {
    return TestBackend.start(vertx, req -> vertx.setTimer(req.path().equals("/slow") ? 2000 : 1,
        t -> req.response().end(name)));
  }

  private Fairway start(TestConfig cfg, Path file) throws Exception {
    cfg.json().put("reload", new JsonObject().put("scanPeriodMs", 200));
    String text = cfg.json().encodePrettily();
    Files.writeString(file, text);
    return Fairway.start(vertx, cfg.build(), new BalancerVerticle.ConfigSource(file, ConfigReloader.shortHash(text)),
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)).await(10, TimeUnit.SECONDS);
  }

  private JsonArray services(Fairway fw) throws Exception {
    String reply = call(HttpMethod.GET, fw.adminPort(), "/api/services", null, null).await(5, TimeUnit.SECONDS);
    return new JsonArray(reply.substring(4));
  }

  private String states(Fairway fw) throws Exception {
    List<String> out = new ArrayList<>();
    for (Object b : services(fw).getJsonObject(0).getJsonArray("backends")) {
      out.add(((JsonObject) b).getString("id") + "=" + ((JsonObject) b).getString("state"));
    }
    return String.join(" ", out);
  }

  private void awaitStates(Fairway fw, String wanted) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!states(fw).equals(wanted)) {
      assertThat(System.nanoTime()).as("states %s, wanted %s", states(fw), wanted).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  @Test
  void addingABackendUnderLoadLosesNothingAndInFlightEnds200(@TempDir Path dir) throws Exception {
    TestBackend b1 = named(vertx, "b1");
    TestBackend b2 = named(vertx, "b2");
    Path file = dir.resolve("config.json");
    TestConfig cfg = TestConfig.service("s", backend("b1", b1.port(), 50)).healthCheck(100, 500, 1, 2);
    Fairway fw = start(cfg, file);
    int port = fw.proxyPort();

    Future<String> inFlight = call(HttpMethod.GET, port, "/slow", null, null);
    AtomicBoolean loading = new AtomicBoolean(true);
    AtomicInteger failures = new AtomicInteger();
    AtomicInteger served = new AtomicInteger();
    Thread load = new Thread(() -> {
      while (loading.get()) {
        try {
          String r = call(HttpMethod.GET, port, "/", null, null).await(5, TimeUnit.SECONDS);
          (r.startsWith("200 ") ? served : failures).incrementAndGet();
        } catch (Exception e) {
          failures.incrementAndGet();
        }
      }
    });
    load.start();
    Thread.sleep(300);

    cfg.lastService().getJsonArray("backends").add(backend("b2", b2.port(), 50));
    Files.writeString(file, cfg.json().encodePrettily());
    awaitStates(fw, "b1=healthy b2=healthy");
    int b2Before = b2.requests();
    Thread.sleep(500);
    loading.set(false);
    load.join(10_000);

    assertThat(inFlight.await(5, TimeUnit.SECONDS)).isEqualTo("200 b1");
    assertThat(failures.get()).as("of %d served", served.get()).isZero();
    assertThat(b2.requests() - b2Before).as("the new backend gets traffic").isPositive();
    assertThat(services(fw).getJsonObject(0).getInteger("configVersion")).isEqualTo(2);
  }

  @Test
  void brokenJsonKeepsTheRunningConfigAndLogsTheProblem(@TempDir Path dir) throws Exception {
    TestBackend b1 = named(vertx, "b1");
    Path file = dir.resolve("config.json");
    Fairway fw = start(TestConfig.service("s", backend("b1", b1.port(), 50)).healthCheck(100, 500, 1, 2), file);

    Files.writeString(file, "{ \"services\": [ ");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (logs.list.stream().noneMatch(e -> e.getFormattedMessage().contains("$: not valid JSON"))) {
      assertThat(System.nanoTime()).as("problem logged").isLessThan(deadline);
      Thread.sleep(50);
    }
    Files.writeString(file, "{\"services\": [{\"name\": \"s\", \"strategy\": \"fastest\", \"backends\": []}]}");
    while (logs.list.stream().noneMatch(e -> e.getFormattedMessage().contains("services[0].strategy: \"fastest\""))) {
      assertThat(System.nanoTime()).as("rule problem logged").isLessThan(deadline);
      Thread.sleep(50);
    }
    assertThat(call(HttpMethod.GET, fw.proxyPort(), "/", null, null).await(5, TimeUnit.SECONDS)).isEqualTo("200 b1");
    assertThat(services(fw).getJsonObject(0).getInteger("configVersion")).isEqualTo(1);
  }

  @Test
  void backendsAddedByApiSurviveAReloadThatDoesNotNameThem(@TempDir Path dir) throws Exception {
    TestBackend b1 = named(vertx, "b1");
    TestBackend b3 = named(vertx, "b3");
    Path file = dir.resolve("config.json");
    TestConfig cfg = TestConfig.service("s", backend("b1", b1.port(), 50)).healthCheck(100, 500, 1, 2);
    Fairway fw = start(cfg, file);

    String body = new JsonArray().add(backend("b3", b3.port(), 5)).encode();
    assertThat(call(HttpMethod.POST, fw.adminPort(), "/api/services/s/backends", null, body)
        .await(5, TimeUnit.SECONDS)).startsWith("401");
    assertThat(call(HttpMethod.POST, fw.adminPort(), "/api/services/nope/backends", TOKEN, body)
        .await(5, TimeUnit.SECONDS)).startsWith("404");
    assertThat(call(HttpMethod.POST, fw.adminPort(), "/api/services/s/backends", TOKEN, "[{\"url\": 7}]")
        .await(5, TimeUnit.SECONDS)).isEqualTo("400 [0].url: 7 is invalid; expected a non-empty string\n");
    assertThat(call(HttpMethod.POST, fw.adminPort(), "/api/services/s/backends", TOKEN, body)
        .await(5, TimeUnit.SECONDS)).startsWith("201");
    awaitStates(fw, "b1=healthy b3=healthy");
    String update = new JsonArray().add(backend("b3", b3.port(), 9)).encode();
    assertThat(call(HttpMethod.POST, fw.adminPort(), "/api/services/s/backends", TOKEN, update)
        .await(5, TimeUnit.SECONDS)).as("an existing id is updated in place").startsWith("200");
    assertThat(services(fw).getJsonObject(0).getJsonArray("backends").getJsonObject(1).getInteger("capacity"))
        .isEqualTo(9);
    assertThat(states(fw)).isEqualTo("b1=healthy b3=healthy");

    cfg.lastService().getJsonArray("backends").getJsonObject(0).put("capacity", 60);
    Files.writeString(file, cfg.json().encodePrettily());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (services(fw).getJsonObject(0).getInteger("configVersion") < 2) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(50);
    }
    assertThat(states(fw)).isEqualTo("b1=healthy b3=healthy");
    assertThat(services(fw).getJsonObject(0).getJsonArray("backends").getJsonObject(0).getInteger("capacity"))
        .isEqualTo(60);

    assertThat(call(HttpMethod.DELETE, fw.adminPort(), "/api/services/s/backends/b3", TOKEN, null)
        .await(5, TimeUnit.SECONDS)).startsWith("200");
    awaitStates(fw, "b1=healthy");
  }
}
