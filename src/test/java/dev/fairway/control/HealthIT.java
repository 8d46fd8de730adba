package dev.fairway.control;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Backend health end to end: active checks and their expectations ({@code expectStatus},
 * {@code expectBody}, {@code host}), connect retries, passive ejection and lame duck by API and by
 * header, each with real backends and a real Fairway.
 */
class HealthIT extends VertxTestBase {
  private static final String TOKEN = "Bearer test-token-0123456789";



  private record Reply(int status, String body, String lameDuck) {
  }

  private Future<Reply> call(HttpMethod method, int port, String uri, String auth) {
    RequestOptions o = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(uri);
    if (auth != null) {
      o.putHeader("Authorization", auth);
    }
    return TestClient.onLoop(vertx, () -> client.request(o).compose(r -> r.send())
        .compose((HttpClientResponse resp) -> resp.body()
            .map(b -> new Reply(resp.statusCode(), b.toString(), resp.getHeader("Lame-Duck")))));
  }

  private Reply get(int port, String uri) throws Exception {
    return call(HttpMethod.GET, port, uri, null).await(10, TimeUnit.SECONDS);
  }

  private String bodies(int port, int n) throws Exception {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Reply r = get(port, "/");
      out.add(r.status() == 200 ? r.body() : Integer.toString(r.status()));
    }
    return String.join(" ", out);
  }

  private String state(Fairway fw, String id) throws Exception {
    return backendJson(fw, id).getString("state");
  }

  private JsonObject backendJson(Fairway fw, String id) throws Exception {
    JsonArray services = new JsonArray(call(HttpMethod.GET, fw.adminPort(), "/api/services", null)
        .await(5, TimeUnit.SECONDS).body());
    for (Object s : services) {
      for (Object b : ((JsonObject) s).getJsonArray("backends")) {
        if (((JsonObject) b).getString("id").equals(id)) {
          return (JsonObject) b;
        }
      }
    }
    return new JsonObject().put("state", "absent");
  }

  private long awaitState(Fairway fw, String id, String wanted, long timeoutMs) throws Exception {
    return awaitState(fw, id, List.of(wanted), timeoutMs);
  }

  private long awaitState(Fairway fw, String id, List<String> wanted, long timeoutMs) throws Exception {
    long start = System.nanoTime();
    while (!wanted.contains(state(fw, id))) {
      assertThat((System.nanoTime() - start) / 1_000_000).as("%s to become %s", id, wanted).isLessThan(timeoutMs);
      Thread.sleep(20);
    }
    return (System.nanoTime() - start) / 1_000_000;
  }

  private static TestBackend named(Vertx vertx, String name) {
    return TestBackend.start(vertx, req -> {
      if (req.path().equals("/slow")) {
        vertx.setTimer(2000, t -> req.response().end(name + "-slow"));
      } else {
        req.response().end(name);
      }
    });
  }

  /**
   * The refused connects also count as passive failures, so the backend may be ejected before its
   * health checks mark it unhealthy; either state takes it out of rotation.
   */
  @Test
  void stoppedBackendIsMarkedUnhealthyInTimeAndConnectFailuresAreRetriedElsewhere() throws Exception {
    TestBackend b1 = named(vertx, "b1");
    TestBackend b2 = named(vertx, "b2");
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", b1.port(), 10), backend("b2", b2.port(), 10))
        .healthCheck(200, 300, 1, 2).build()).await(10, TimeUnit.SECONDS);
    assertThat(bodies(fw.proxyPort(), 4)).isEqualTo("b1 b2 b1 b2");

    b1.close();
    assertThat(bodies(fw.proxyPort(), 6)).as("refused connects retried on b2").isEqualTo("b2 b2 b2 b2 b2 b2");
    long took = awaitState(fw, "b1", List.of("unhealthy", "ejected"), 5000);
    assertThat(took).as("2 x 200 ms + 300 ms, plus slack for a loaded 2-core machine").isLessThan(2500);
    assertThat(bodies(fw.proxyPort(), 6)).isEqualTo("b2 b2 b2 b2 b2 b2");
    assertThat(fw.metrics().registry().find("fairway_retries").counter().count()).isGreaterThanOrEqualTo(1);
  }

  @Test
  void theOnlyBackendOfAServiceIsNeverEjectedSoClientsGetItsAnswersNotA503() throws Exception {
    TestBackend only = TestBackend.start(vertx, req -> req.response().setStatusCode(500).end("broken"));
    TestBackend o1 = named(vertx, "o1");
    TestBackend o2 = named(vertx, "o2");
    TestBackend o3 = named(vertx, "o3");
    // four backends in the process, one in service s: a process-wide cap (2 of 4) would eject it
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("only", only.port(), 10))
        .healthCheck(200, 100, 1, 2).addService("other", "/other", backend("o1", o1.port(), 10),
            backend("o2", o2.port(), 10), backend("o3", o3.port(), 10)).build()).await(10, TimeUnit.SECONDS);

    assertThat(bodies(fw.proxyPort(), 20)).isEqualTo(String.join(" ", java.util.Collections.nCopies(20, "500")));
    Thread.sleep(400); // two observation batches
    assertThat(state(fw, "only")).isEqualTo("healthy");
    assertThat(bodies(fw.proxyPort(), 5)).as("the backend's own 500s, never Fairway's 503").isEqualTo("500 500 500 500 500");
  }

  @Test
  void anEjectedBackendReturnsAtItsNextPassingHealthCheck() throws Exception {
    java.util.concurrent.atomic.AtomicBoolean broken = new java.util.concurrent.atomic.AtomicBoolean(true);
    TestBackend flaky = TestBackend.start(vertx, req -> req.response().setStatusCode(broken.get() ? 500 : 200)
        .end(broken.get() ? "broken" : "flaky"), true);
    TestBackend good = named(vertx, "good");
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("flaky", flaky.port(), 10),
        backend("good", good.port(), 10)).healthCheck(300, 100, 1, 3).build()).await(10, TimeUnit.SECONDS);
    for (int i = 0; i < 40 && !state(fw, "flaky").equals("ejected"); i++) {
      get(fw.proxyPort(), "/");
      Thread.sleep(20);
    }
    assertThat(state(fw, "flaky")).isEqualTo("ejected");

    broken.set(false); // restarted: its next health check passes
    long took = awaitState(fw, "flaky", "healthy", 5000);
    assertThat(took).as("back at its next check (300 ms), not after the 30 s ejection").isLessThan(2000);
  }

  @Test
  void backendAnswering500ToEverythingIsEjectedAndTrafficMovesAway() throws Exception {
    // 500 to its health checks too: the first check comes at a random moment within the 10 s
    // interval, and a passing one would end the ejection early (it did, once in CI)
    TestBackend bad = TestBackend.start(vertx, req -> req.response().setStatusCode(500).end("broken"), true);
    TestBackend good = named(vertx, "good");
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("bad", bad.port(), 10),
        backend("good", good.port(), 10)).healthCheck(10_000, 100, 1, 2).build()).await(10, TimeUnit.SECONDS);

    for (int i = 0; i < 40 && !state(fw, "bad").equals("ejected"); i++) {
      get(fw.proxyPort(), "/");
      Thread.sleep(20);
    }
    assertThat(state(fw, "bad")).isEqualTo("ejected");
    int before = bad.requests();
    assertThat(bodies(fw.proxyPort(), 10)).isEqualTo("good good good good good good good good good good");
    assertThat(bad.requests() - before).as("no proxied request reaches it").isZero();
  }

  @Test
  void lameDuckByApiDivertsNewRequestsAtOnceWhileInFlightCompletes() throws Exception {
    TestBackend b1 = named(vertx, "b1");
    TestBackend b2 = named(vertx, "b2");
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", b1.port(), 10), backend("b2", b2.port(), 10))
        .healthCheck(100, 100, 1, 2).build()).await(10, TimeUnit.SECONDS);
    int port = fw.proxyPort();

    Future<Reply> slow = call(HttpMethod.GET, port, "/slow", null);
    Thread.sleep(200);
    assertThat(call(HttpMethod.POST, fw.adminPort(), "/api/backends/b1/lame-duck", null)
        .await(5, TimeUnit.SECONDS).status()).isEqualTo(401);
    assertThat(call(HttpMethod.POST, fw.adminPort(), "/api/backends/nope/lame-duck", TOKEN)
        .await(5, TimeUnit.SECONDS).status()).isEqualTo(404);
    Reply posted = call(HttpMethod.POST, fw.adminPort(), "/api/backends/b1/lame-duck", TOKEN).await(5, TimeUnit.SECONDS);
    assertThat(posted.status()).isEqualTo(200);
    assertThat(new JsonObject(posted.body()).getString("state")).isEqualTo("lame-duck");
    assertThat(call(HttpMethod.POST, fw.adminPort(), "/api/backends/b1/lame-duck", TOKEN)
        .await(5, TimeUnit.SECONDS).status()).as("idempotent").isEqualTo(200);

    assertThat(bodies(port, 6)).isEqualTo("b2 b2 b2 b2 b2 b2");
    Reply slowReply = slow.await(5, TimeUnit.SECONDS);
    assertThat(slowReply.status()).isEqualTo(200);
    assertThat(slowReply.body()).isEqualTo("b1-slow");
    Thread.sleep(300);
    assertThat(state(fw, "b1")).as("health checks do not undo a pushed lame duck").isEqualTo("lame-duck");

    assertThat(call(HttpMethod.DELETE, fw.adminPort(), "/api/backends/b1/lame-duck", TOKEN)
        .await(5, TimeUnit.SECONDS).status()).isEqualTo(200);
    awaitState(fw, "b1", "healthy", 2000);
    assertThat(bodies(port, 4)).contains("b1");
  }

  @Test
  void lameDuckHeaderDivertsWithinOneRequestAndIsNotPassedOn() throws Exception {
    AtomicBoolean leaving = new AtomicBoolean();
    TestBackend b1 = TestBackend.start(vertx, req -> {
      if (req.path().equals("/slow")) {
        vertx.setTimer(2000, t -> req.response().end("b1-slow"));
        return;
      }
      if (req.path().equals("/bye")) {
        leaving.set(true);
      }
      if (leaving.get()) {
        req.response().putHeader("Lame-Duck", "true");
      }
      req.response().end("b1");
    }, true);
    TestBackend b2 = named(vertx, "b2");
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", b1.port(), 10), backend("b2", b2.port(), 10))
        .healthCheck(100, 100, 1, 2).build()).await(10, TimeUnit.SECONDS);
    int port = fw.proxyPort();

    Future<Reply> slow = call(HttpMethod.GET, port, "/slow", null);
    Thread.sleep(200);
    Reply bye = get(port, "/bye");
    assertThat(bye.body()).isEqualTo("b2");
    Reply bye1 = get(port, "/bye");
    assertThat(bye1.body()).isEqualTo("b1");
    assertThat(bye1.lameDuck()).as("consumed by Fairway").isNull();
    assertThat(bodies(port, 6)).isEqualTo("b2 b2 b2 b2 b2 b2");
    assertThat(slow.await(5, TimeUnit.SECONDS).body()).isEqualTo("b1-slow");
    awaitState(fw, "b1", "lame-duck", 1000);
  }

  /** A backend answering {@code GET /health} with this status and body, and {@code name} to the rest. */
  private static TestBackend checkedWith(Vertx vertx, String name, int healthStatus, String healthBody) {
    return TestBackend.start(vertx, req -> {
      if (req.path().equals("/health")) {
        req.response().setStatusCode(healthStatus).end(healthBody);
      } else {
        req.response().end(name);
      }
    }, true);
  }

  @Test
  void aBackendAnswering200WithTheWrongBodyIsMarkedDownByTheExpectation() throws Exception {
    TestBackend starting = checkedWith(vertx, "starting", 200, "status=starting");
    TestBackend failing = checkedWith(vertx, "failing", 503, "status=ok");
    TestBackend ready = checkedWith(vertx, "ready", 200, "status=ok");
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("starting", starting.port(), 10),
            backend("failing", failing.port(), 10), backend("ready", ready.port(), 10))
        .healthCheck(100, 300, 1, 2).healthCheck("expectStatus", "200-299")
        .healthCheck("expectBody", "status=ok").build()).await(10, TimeUnit.SECONDS);

    awaitState(fw, "starting", "unhealthy", 3000);
    awaitState(fw, "failing", "unhealthy", 3000);
    assertThat(backendJson(fw, "starting").getString("reason"))
        .isEqualTo("2 consecutive failed checks: body lacks \"status=ok\"");
    assertThat(backendJson(fw, "failing").getString("reason"))
        .isEqualTo("2 consecutive failed checks: status 503 not in 200-299");
    Thread.sleep(300);
    assertThat(state(fw, "ready")).isEqualTo("healthy");
    assertThat(bodies(fw.proxyPort(), 6)).isEqualTo("ready ready ready ready ready ready");
  }

  @Test
  void aRedirectIsHealthyWith200To399AndNotFollowedButUnhealthyByDefault() throws Exception {
    AtomicInteger checks = new AtomicInteger();
    AtomicInteger followed = new AtomicInteger();
    TestBackend lenient = TestBackend.start(vertx, req -> {
      if (req.path().equals("/health")) {
        checks.incrementAndGet();
        req.response().setStatusCode(301).putHeader("Location", "/elsewhere").end();
      } else {
        if (req.path().equals("/elsewhere")) {
          followed.incrementAndGet();
        }
        req.response().end("lenient");
      }
    }, true);
    TestBackend strict = checkedWith(vertx, "strict", 301, "");
    Fairway fw = Fairway.start(vertx, TestConfig.service("lenient", backend("lenient", lenient.port(), 10))
        .healthCheck(100, 300, 1, 2).healthCheck("expectStatus", "200-399")
        .addService("strict", "/strict", backend("strict", strict.port(), 10)).healthCheck(100, 300, 1, 2)
        .build()).await(10, TimeUnit.SECONDS);

    awaitState(fw, "strict", "unhealthy", 3000);
    assertThat(backendJson(fw, "strict").getString("reason"))
        .isEqualTo("2 consecutive failed checks: status 301 not in 200-299");
    long start = System.nanoTime();
    while (checks.get() < 3 && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3)) {
      Thread.sleep(20);
    }
    assertThat(checks.get()).as("checks of the lenient backend so far").isGreaterThanOrEqualTo(3);
    assertThat(state(fw, "lenient")).isEqualTo("healthy");
    assertThat(get(fw.proxyPort(), "/").body()).isEqualTo("lenient");
    assertThat(followed.get()).as("the redirect to /elsewhere is never followed").isZero();
  }

  @Test
  void theConfiguredHostHeaderAndTheUserAgentReachTheBackend() throws Exception {
    Map<String, String> seen = new ConcurrentHashMap<>();
    Handler<HttpServerRequest> recorder = req -> {
      if (req.path().equals("/health")) {
        seen.put(req.localAddress().port() + " host", String.valueOf(req.getHeader("Host")));
        seen.put(req.localAddress().port() + " ua", String.valueOf(req.getHeader("User-Agent")));
      }
      req.response().end("ok");
    };
    TestBackend named = TestBackend.start(vertx, recorder, true);
    TestBackend plain = TestBackend.start(vertx, recorder, true);
    Fairway fw = Fairway.start(vertx, TestConfig.service("named", backend("named", named.port(), 10))
        .healthCheck(100, 300, 1, 2).healthCheck("host", "api.example:8080")
        .addService("plain", "/plain", backend("plain", plain.port(), 10)).healthCheck(100, 300, 1, 2)
        .build()).await(10, TimeUnit.SECONDS);

    long start = System.nanoTime();
    while (seen.size() < 4 && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3)) {
      Thread.sleep(20);
    }
    assertThat(new TreeMap<>(seen)).isEqualTo(new TreeMap<>(Map.of(
        named.port() + " host", "api.example:8080", named.port() + " ua", "fairway-health-check",
        plain.port() + " host", "127.0.0.1:" + plain.port(), plain.port() + " ua", "fairway-health-check")));
    assertThat(state(fw, "named")).isEqualTo("healthy");
  }

  @Test
  void checksWithoutAnAnswerKeepTheirFailureTexts() throws Exception {
    TestBackend hanging = TestBackend.start(vertx, req -> { }, true);
    TestBackend gone = named(vertx, "gone");
    int gonePort = gone.port();
    gone.close();
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("hanging", hanging.port(), 10),
        backend("gone", gonePort, 10)).healthCheck(100, 200, 1, 2).build()).await(10, TimeUnit.SECONDS);

    awaitState(fw, "hanging", "unhealthy", 3000);
    awaitState(fw, "gone", "unhealthy", 3000);
    assertThat(backendJson(fw, "hanging").getString("reason"))
        .isEqualTo("2 consecutive failed checks: timeout after 200 ms");
    assertThat(backendJson(fw, "gone").getString("reason"))
        .isEqualTo("2 consecutive failed checks: connection refused");
  }
}
