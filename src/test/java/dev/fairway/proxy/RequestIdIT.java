package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** One {@code X-Request-Id} per exchange, seen by the backend, the client and the access log. */
class RequestIdIT extends VertxTestBase {
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger access = (Logger) LoggerFactory.getLogger("fairway.access");
  private Fairway fw;

  @BeforeEach
  void setUp() throws Exception {
    lines.start();
    access.addAppender(lines);
    TestBackend echo = TestBackend.start(vertx, req -> req.body().onSuccess(b -> {
      String seen = req.getHeader("x-request-id") + "," + req.headers().getAll("x-request-id").size();
      if (req.path().startsWith("/chunked")) {
        req.response().putHeader("x-request-id", "backend-made").setChunked(true).write(seen);
        req.response().end();
      } else {
        req.response().putHeader("x-request-id", "backend-made").end(seen);
      }
    }));
    TestConfig cfg = TestConfig.service("web", backend("b1", echo.port(), 5));
    cfg.lastService().getJsonObject("match").put("pathPrefix", "/api");
    cfg.json().put("accessLog", new JsonObject().put("enabled", true).put("format", "json"));
    fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void tearDown() {
    access.detachAppender(lines);
  }

  @Test
  void anAbsentIdIsGeneratedAndSeenByBackendClientAndAccessLog() throws Exception {
    RawHttp.Response r = RawHttp.exchange(fw.proxyPort(), "GET /api/a HTTP/1.1\r\nHost: x\r\n\r\n");

    assertThat(r.all("x-request-id")).singleElement().asString().matches("[0-9a-f]{32}");
    String id = r.all("x-request-id").get(0);
    assertThat(r.body()).isEqualTo(id + ",1");
    assertThat(new JsonObject(awaitLine()).getString("requestId")).isEqualTo(id);
  }

  @Test
  void aValidClientIdIsKeptAndAnInvalidOneReplaced() throws Exception {
    RawHttp.Response kept = RawHttp.exchange(fw.proxyPort(), "GET /api/a HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc-1\r\n\r\n");
    assertThat(kept.all("x-request-id")).containsExactly("abc-1");
    assertThat(kept.body()).isEqualTo("abc-1,1");

    RawHttp.Response replaced = RawHttp.exchange(fw.proxyPort(),
        "GET /api/a HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\"b\r\n\r\n");
    String id = replaced.all("x-request-id").get(0);
    assertThat(id).matches("[0-9a-f]{32}");
    assertThat(replaced.body()).isEqualTo(id + ",1");
  }

  @Test
  void aRequestWithABodyAndAChunkedAnswerCarryTheIdToo() throws Exception {
    String got = TestClient.onLoop(vertx, () -> client.request(HttpMethod.POST, fw.proxyPort(), "127.0.0.1", "/api/chunked")
        .compose(req -> req.putHeader("x-request-id", "post-9").send("data"))
        .compose(resp -> resp.body().map(b -> resp.headers().getAll("x-request-id") + " " + b)))
        .await(5, TimeUnit.SECONDS);
    assertThat(got).isEqualTo("[post-9] post-9,1");
  }

  @Test
  void fairwaysOwnErrorAnswerCarriesTheId() throws Exception {
    RawHttp.Response r = RawHttp.exchange(fw.proxyPort(), "GET /nowhere HTTP/1.1\r\nHost: x\r\nX-Request-Id: lost-7\r\n\r\n");
    assertThat(r.status()).isEqualTo(404);
    assertThat(r.all("x-request-id")).containsExactly("lost-7");
  }

  private String awaitLine() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (lines.list.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    List<String> got = lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(got).hasSize(1);
    return got.get(0);
  }
}
