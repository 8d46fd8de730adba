package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.Fairway;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.ScriptedBackend;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient.Reply;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.NetSocket;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Each status of the design's table that a failing backend causes, produced by a real failing
 * backend; each is one plain-text line, and afterwards no slot is left taken.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ErrorStatusTest {
  private Vertx vertx;
  private HttpClient client;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    this.client = vertx.createHttpClient();
  }

  @Test
  void connectionRefusedGives503(Vertx vertx) throws Exception {
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("dead", closedPort(), 5)).build());

    assertFairwayAnswer(TestClient.get(vertx, client, fairway.proxyPort(), "/"), Failure.CONNECT_FAILED);
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void refusedBackendIsRetriedOnAnotherOne() throws Exception {
    TestBackend live = TestBackend.start(vertx, req -> req.body().onSuccess(b -> req.response().end("live")));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web",
        backend("dead", closedPort(), 5), backend("live", live.port(), 5)).build());

    for (int i = 0; i < 3; i++) {
      assertThat(TestClient.get(vertx, client, fairway.proxyPort(), "/").body()).isEqualTo("live");
      String posted = TestClient.onLoop(vertx, () -> client.request(HttpMethod.POST, fairway.proxyPort(), "127.0.0.1", "/")
          .compose(req -> req.send("form=1"))
          .compose(resp -> resp.body()))
          .await(10, TimeUnit.SECONDS).toString();
      assertThat(posted).isEqualTo("live");
    }
    assertThat(live.requests()).isEqualTo(6);
    TestFairway.assertIdleSoon(fairway);
  }

  /**
   * A request without {@code Host} gets the backend's address as {@code Host}; when it is retried
   * on another backend (here: "flaky" drops each pooled connection as its second request arrives),
   * the retry names the backend it goes to.
   */
  @Test
  void aRetryOfARequestWithoutHostNamesTheBackendItGoesTo() throws Exception {
    Map<HttpConnection, Integer> seen = new ConcurrentHashMap<>();
    TestBackend flaky = TestBackend.start(vertx, req -> {
      if (seen.merge(req.connection(), 1, Integer::sum) > 1) {
        req.connection().close();
      } else {
        req.response().end("flaky " + req.getHeader("host"));
      }
    });
    TestBackend steady = TestBackend.start(vertx, req -> req.response().end("steady " + req.getHeader("host")));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web",
        backend("flaky", flaky.port(), 5), backend("steady", steady.port(), 5)).build());

    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      answers.add(RawHttp.exchange(fairway.proxyPort(), "GET / HTTP/1.0\r\n\r\n").body());
    }
    assertThat(seen.values()).as("a pooled connection was dropped and the request retried").contains(2);
    assertThat(answers).allSatisfy(a -> assertThat(a).isIn(
        "flaky 127.0.0.1:" + flaky.port(), "steady 127.0.0.1:" + steady.port()));
  }

  @Test
  void noResponseInTimeGives504() throws Exception {
    TestBackend silent = TestBackend.start(vertx, req -> { });
    Fairway fairway = TestFairway.start(vertx,
        TestConfig.service("web", backend("silent", silent.port(), 5)).timeouts(1000, 300).build());

    long start = System.nanoTime();
    Reply r = TestClient.get(vertx, client, fairway.proxyPort(), "/");
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertFairwayAnswer(r, Failure.RESPONSE_TIMEOUT);
    assertThat(tookMs).as("waited responseMs (300), not the 30 s default").isBetween(290L, 10_000L);
    TestFairway.assertIdleSoon(fairway);
    assertBackendConnectionClosedSoon(silent);
  }

  @Test
  void garbageResponseGives502() throws Exception {
    assertScriptGives502(s -> s.write("garbage\r\n\r\n").onComplete(v -> s.close()));
  }

  @Test
  void closeWithoutResponseGives502() throws Exception {
    assertScriptGives502(NetSocket::close);
  }

  @Test
  void truncatedResponseHeadGives502() throws Exception {
    assertScriptGives502(s -> s.write("HTTP/1.1 200 OK\r\nContent-Le").onComplete(v -> s.close()));
  }

  @Test
  void backendDyingMidBodyAbortsTheClient() throws Exception {
    assertMidBodyDeathAborts("Content-Length: 100000\r\n\r\n" + "x".repeat(1000));
  }

  @Test
  void backendDyingMidChunkedBodyAbortsTheClient() throws Exception {
    assertMidBodyDeathAborts("Transfer-Encoding: chunked\r\n\r\n3e8\r\n" + "x".repeat(1000) + "\r\n");
  }

  @Test
  void serviceWithoutBackendsGives503() throws Exception {
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("empty").build());

    assertFairwayAnswer(TestClient.get(vertx, client, fairway.proxyPort(), "/"), Failure.NO_BACKEND);
    TestFairway.assertIdleSoon(fairway);
  }

  private void assertScriptGives502(io.vertx.core.Handler<NetSocket> script) throws Exception {
    try (ScriptedBackend bad = ScriptedBackend.start(vertx, script)) {
      Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("bad", bad.port(), 5)).build());

      assertFairwayAnswer(TestClient.get(vertx, client, fairway.proxyPort(), "/"), Failure.BAD_RESPONSE);
      assertThat(bad.requests()).isEqualTo(1);
      TestFairway.assertIdleSoon(fairway);
    }
  }

  /**
   * A backend sends {@code 200 OK}, the given framing header and part of the body, then closes:
   * the client must get the status and the partial body, then an error, never a clean end.
   */
  private void assertMidBodyDeathAborts(String headAndPartialBody) throws Exception {
    try (ScriptedBackend dying = ScriptedBackend.start(vertx,
        s -> s.write("HTTP/1.1 200 OK\r\n" + headAndPartialBody).onComplete(v -> s.close()))) {
      Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("dying", dying.port(), 5)).build());

      AtomicInteger status = new AtomicInteger();
      Future<Buffer> body = TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, fairway.proxyPort(), "127.0.0.1", "/")
          .compose(req -> req.send())
          .compose(resp -> {
            status.set(resp.statusCode());
            return resp.body();
          }));

      assertThatThrownBy(() -> body.await(5, TimeUnit.SECONDS)).isNotInstanceOf(TimeoutException.class);
      assertThat(status.get()).as("status line and head were forwarded before the abort").isEqualTo(200);
      assertThat(body.failed()).as("the client's body must fail, not end cleanly").isTrue();
      TestFairway.assertIdleSoon(fairway);
    }
  }

  /** Status, content type and body are Fairway's own answer for {@code f}: one plain-text line. */
  private static void assertFairwayAnswer(Reply r, Failure f) {
    assertThat(r.status()).isEqualTo(f.status());
    assertThat(r.headers().get("Content-Type")).startsWith("text/plain");
    assertThat(r.body()).isEqualTo(f.reason() + "\n");
    assertThat(r.body().strip()).doesNotContain("\n");
    if (f.status() == 503) {
      assertThat(r.headers().get("Retry-After")).as("every 503 of Fairway's tells when to retry").matches("[1-9][0-9]*");
    } else {
      assertThat(r.headers().get("Retry-After")).isNull();
    }
  }

  /** The backend sees the proxy give up on the request: its connection is closed, nothing in flight. */
  private static void assertBackendConnectionClosedSoon(TestBackend b) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (b.inFlight() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(b.inFlight()).isZero();
  }

  /** A port on 127.0.0.1 that nothing listens on (bound once, then released). */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
