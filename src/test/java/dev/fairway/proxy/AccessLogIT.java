package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.testing.FairwayProcess;
import dev.fairway.testing.RawH2;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** One access-log line per request, with the fields operators need, only when switched on. */
class AccessLogIT extends VertxTestBase {
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger access = (Logger) LoggerFactory.getLogger("fairway.access");

  @BeforeEach
  void setUp() {
    lines.start();
    access.addAppender(lines);
  }

  @AfterEach
  void tearDown() throws Exception {
    access.detachAppender(lines);
  }

  private List<String> awaitLines(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (lines.list.size() < n && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  void jsonLinesNameServiceBackendStatusBytesAndTimes() throws Exception {
    TestBackend b1 = TestBackend.start(vertx, req -> req.response().end("hello"));
    TestConfig cfg = TestConfig.service("web", backend("b1", b1.port(), 5));
    cfg.addService("empty", "/none");
    cfg.json().put("accessLog", new JsonObject().put("enabled", true).put("format", "json"));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    assertThat(TestClient.get(vertx, client, fw.proxyPort(), "/a?x=1").status()).isEqualTo(200);
    assertThat(TestClient.get(vertx, client, fw.proxyPort(), "/none").status()).isEqualTo(503);

    List<String> got = awaitLines(2);
    assertThat(got).hasSize(2);
    JsonObject ok = new JsonObject(got.get(0));
    assertThat(ok.getString("method")).isEqualTo("GET");
    assertThat(ok.getString("path")).isEqualTo("/a?x=1");
    assertThat(ok.getString("service")).isEqualTo("web");
    assertThat(ok.getString("backend")).isEqualTo("b1");
    assertThat(ok.getInteger("status")).isEqualTo(200);
    assertThat(ok.getLong("bytes")).isEqualTo(5);
    assertThat(ok.getString("client")).isEqualTo("127.0.0.1");
    assertThat(ok.getDouble("totalMs")).isGreaterThanOrEqualTo(ok.getDouble("upstreamMs")).isPositive();
    JsonObject none = new JsonObject(got.get(1));
    assertThat(none.getString("service")).isEqualTo("empty");
    assertThat(none.getString("backend")).isEqualTo("-");
    assertThat(none.getInteger("status")).isEqualTo(503);
  }

  @Test
  void combinedLinesGiveTheVersionTheClientSentAlsoForARequestWithABody() throws Exception {
    TestBackend b1 = TestBackend.start(vertx, req -> req.body().onSuccess(b -> req.response().end("ok")));
    TestConfig cfg = TestConfig.service("web", backend("b1", b1.port(), 5));
    cfg.json().put("accessLog", new JsonObject().put("enabled", true).put("format", "combined"));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    assertThat(RawHttp.exchange(fw.proxyPort(), "POST /form HTTP/1.0\r\nContent-Length: 3\r\n\r\na=1").status())
        .isEqualTo(200);
    assertThat(RawHttp.exchange(fw.proxyPort(), "GET /page HTTP/1.0\r\n\r\n").status()).isEqualTo(200);

    assertThat(awaitLines(2)).hasSize(2).anySatisfy(l -> assertThat(l).contains("\"POST /form HTTP/1.0\" 200"))
        .anySatisfy(l -> assertThat(l).contains("\"GET /page HTTP/1.0\" 200"));
  }

  @Test
  void http2StreamsAreLoggedAsHttp2() throws Exception {
    TestBackend b1 = TestBackend.start(vertx, req -> req.body().onSuccess(b -> req.response().end("ok")));
    TestConfig cfg = TestConfig.service("web", backend("b1", b1.port(), 5));
    cfg.json().put("accessLog", new JsonObject().put("enabled", true).put("format", "combined"));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    assertThat(RawH2.request(fw.proxyPort(), ":method", "GET", ":path", "/h2", ":scheme", "http", ":authority", "a",
        "user-agent", "raw-h2")).isEqualTo("status 200");

    assertThat(awaitLines(1)).singleElement().satisfies(l -> assertThat(l).contains("\"GET /h2 HTTP/2.0\" 200 2")
        .contains("\"raw-h2\" service=web backend=b1"));
  }

  @Test
  void offByDefault() throws Exception {
    TestBackend b1 = TestBackend.start(vertx, req -> req.response().end("hello"));
    Fairway fw = Fairway.start(vertx, TestConfig.service("web", backend("b1", b1.port(), 5)).build())
        .await(10, TimeUnit.SECONDS);
    assertThat(TestClient.get(vertx, client, fw.proxyPort(), "/").status()).isEqualTo(200);
    Thread.sleep(200);
    assertThat(lines.list).isEmpty();
  }

  private static List<String> accessLines(List<String> output) {
    return output.stream().filter(l -> l.startsWith("{\"time\"")).toList();
  }

  @Test
  void theShippedLogbackPrintsEveryLineWholeWithoutWaitingForMoreAndLosesNoneAtSigterm(@TempDir Path dir)
      throws Exception {
    TestBackend b1 = TestBackend.start(vertx, req -> req.response().end("hello"));
    TestConfig cfg = TestConfig.service("web", backend("b1", b1.port(), 50));
    cfg.json().put("accessLog", new JsonObject().put("enabled", true).put("format", "json"));
    cfg.json().getJsonObject("proxy").put("drainGraceMs", 0).put("drainTimeoutMs", 2000);
    Path conf = dir.resolve("config.json");
    Files.writeString(conf, cfg.json().encodePrettily());
    try (FairwayProcess p = FairwayProcess.start(conf)) {
      int port = p.proxyPort();
      assertThat(port).as("started: %s", p.lines()).isPositive();
      Set<String> sent = new HashSet<>();
      for (int i = 0; i < 300; i++) {
        String path = "/r/" + i + "?pad=" + "x".repeat(i);
        assertThat(TestClient.get(vertx, client, port, path).status()).isEqualTo(200);
        sent.add(path);
      }
      List<String> first = accessLines(p.await(out -> accessLines(out).size() >= 300, 10));
      assertThat(first).as("printed while Fairway runs, not held for a full buffer").hasSize(300);

      for (int i = 300; i < 350; i++) {
        String path = "/r/" + i;
        assertThat(TestClient.get(vertx, client, port, path).status()).isEqualTo(200);
        sent.add(path);
      }
      p.signal("TERM");
      assertThat(p.waitForExit(20)).isTrue();
      List<String> all = accessLines(p.lines());
      Set<String> logged = new HashSet<>();
      for (String line : all) {
        JsonObject json = new JsonObject(line);
        assertThat(json.getInteger("status")).isEqualTo(200);
        logged.add(json.getString("path"));
      }
      assertThat(all).hasSize(350);
      assertThat(logged).isEqualTo(sent);
    }
  }
}
