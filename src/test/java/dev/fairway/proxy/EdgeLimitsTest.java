package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The client-facing limits: sizes and counts of request heads, the head-completion timeout
 * (slowloris), idle connections, the connection cap, underscore field names and how far
 * client-supplied {@code X-Forwarded-*} fields are trusted.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EdgeLimitsTest {
  private Vertx vertx;
  private TestBackend backend;
  private final AtomicReference<io.vertx.core.MultiMap> lastHeaders = new AtomicReference<>();

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    backend = TestBackend.start(vertx, req -> {
      lastHeaders.set(io.vertx.core.MultiMap.caseInsensitiveMultiMap().addAll(req.headers()));
      req.response().end("ok");
    });
  }

  private Fairway start(TestConfig config) {
    return TestFairway.start(vertx, config.build());
  }

  private TestConfig config() {
    return TestConfig.service("web", backend("b", backend.port(), 10));
  }

  @Test
  void requestLineTooLongGets414() throws Exception {
    Fairway f = start(config().proxy("maxRequestLineBytes", 100));
    RawHttp.Closing c = RawHttp.exchangeAndClose(f.proxyPort(), "GET /" + "a".repeat(200) + " HTTP/1.1\r\nHost: a\r\n\r\n");
    assertThat(c.response().status()).isEqualTo(414);
    assertThat(c.closed()).isTrue();
    assertThat(RawHttp.exchange(f.proxyPort(), "GET /" + "a".repeat(80) + " HTTP/1.1\r\nHost: a\r\n\r\n").status()).isEqualTo(200);
  }

  @Test
  void headersTooLargeGet431() throws Exception {
    Fairway f = start(config().proxy("maxHeaderBytes", 1024));
    RawHttp.Closing c = RawHttp.exchangeAndClose(f.proxyPort(), "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + "b".repeat(2000) + "\r\n\r\n");
    assertThat(c.response().status()).isEqualTo(431);
    assertThat(c.response().body()).isEqualTo(Failure.HEADERS_TOO_LARGE.reason() + "\n");
    assertThat(c.closed()).isTrue();
    assertThat(backend.requests()).isZero();
  }

  @Test
  void tooManyHeaderFieldsGet431() throws Exception {
    Fairway f = start(config().proxy("maxHeaderCount", 10));
    StringBuilder req = new StringBuilder("GET / HTTP/1.1\r\nHost: a\r\n");
    for (int i = 0; i < 10; i++) {
      req.append("X-").append(i).append(": v\r\n");
    }
    RawHttp.Closing c = RawHttp.exchangeAndClose(f.proxyPort(), req + "\r\n");
    assertThat(c.response().status()).isEqualTo(431);
    assertThat(c.closed()).isTrue();
  }

  @Test
  void slowHeadersGet408AndCloseInTime() throws Exception {
    Fairway f = start(config().proxy("requestHeadersTimeoutMs", 300));
    try (Socket s = new Socket("127.0.0.1", f.proxyPort())) {
      s.setSoTimeout(5000);
      long start = System.nanoTime();
      OutputStream out = s.getOutputStream();
      out.write("GET / HTTP/1.1\r\nHost: a\r\n".getBytes(StandardCharsets.ISO_8859_1));
      Thread dripper = new Thread(() -> {
        try {
          for (int i = 0; i < 4; i++) {
            Thread.sleep(100); // a byte every 100 ms keeps any idle timer happy, not this one
            out.write("X-Drip: 1\r\n".getBytes(StandardCharsets.ISO_8859_1));
          }
        } catch (Exception e) {
          // closed by Fairway: expected
        }
      });
      dripper.start();
      RawHttp.Response r = RawHttp.readResponse(s.getInputStream());
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      RawHttp.Closing c = new RawHttp.Closing(r, awaitClose(s));
      dripper.join(2000);
      assertThat(c.response().status()).isEqualTo(408);
      assertThat(c.closed()).isTrue();
      assertThat(tookMs).as("408 within the timeout + 100 ms").isBetween(290L, 300L + 100L);
    }
    assertThat(backend.requests()).isZero();
  }

  @Test
  void headTimeoutAlsoCoversLaterRequestsOnAKeptAliveConnection() throws Exception {
    Fairway f = start(config().proxy("requestHeadersTimeoutMs", 300));
    try (Socket s = new Socket("127.0.0.1", f.proxyPort())) {
      s.setSoTimeout(5000);
      s.getOutputStream().write("GET / HTTP/1.1\r\nHost: a\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      assertThat(RawHttp.readResponse(s.getInputStream()).status()).isEqualTo(200);
      Thread.sleep(500); // idle between requests is not slow headers
      s.getOutputStream().write("GET / HTTP/1.1\r\nHost: a\r\n".getBytes(StandardCharsets.ISO_8859_1));
      RawHttp.Closing c = RawHttp.readAndAwaitClose(s);
      assertThat(c.response().status()).isEqualTo(408);
      assertThat(c.closed()).isTrue();
    }
  }

  @Test
  void idleConnectionsAreClosed() throws Exception {
    Fairway f = start(config().proxy("idleTimeoutMs", 300));
    try (Socket s = new Socket("127.0.0.1", f.proxyPort())) {
      s.setSoTimeout(5000);
      s.getOutputStream().write("GET / HTTP/1.1\r\nHost: a\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      assertThat(RawHttp.readResponse(s.getInputStream()).status()).isEqualTo(200);
      long start = System.nanoTime();
      assertThat(s.getInputStream().read()).isEqualTo(-1);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(200L, 1500L);
    }
  }

  @Test
  void connectionsOverTheCapAreRefusedWhileOpenOnesKeepServing() throws Exception {
    Fairway f = start(config().proxy("maxConnections", 5));
    List<Socket> open = new ArrayList<>();
    try {
      for (int i = 0; i < 5; i++) {
        Socket s = new Socket("127.0.0.1", f.proxyPort());
        s.setSoTimeout(5000);
        open.add(s);
        assertThat(roundTrip(s)).isEqualTo(200);
      }
      for (int i = 0; i < 3; i++) {
        RawHttp.Closing refused = RawHttp.exchangeAndClose(f.proxyPort(), "GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        assertThat(refused.response().status()).isEqualTo(503);
        assertThat(refused.response().body()).isEqualTo(Failure.TOO_MANY_CONNECTIONS.reason() + "\n");
        assertThat(refused.closed()).isTrue();
      }
      long start = System.nanoTime();
      for (Socket s : open) {
        for (int k = 0; k < 20; k++) {
          assertThat(roundTrip(s)).isEqualTo(200);
        }
      }
      long perRequestMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start) / 100;
      assertThat(perRequestMicros).as("open connections keep their latency").isLessThan(20_000);
    } finally {
      for (Socket s : open) {
        s.close();
      }
    }
    Thread.sleep(200);
    assertThat(RawHttp.exchange(f.proxyPort(), "GET / HTTP/1.1\r\nHost: a\r\n\r\n").status())
        .as("closed connections free their places").isEqualTo(200);
  }

  private static boolean awaitClose(Socket s) throws Exception {
    s.setSoTimeout(2000);
    try {
      return s.getInputStream().read() < 0;
    } catch (java.net.SocketTimeoutException e) {
      return false;
    } catch (java.io.IOException e) {
      return true;
    }
  }

  private static int roundTrip(Socket s) throws Exception {
    s.getOutputStream().write("GET / HTTP/1.1\r\nHost: a\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    InputStream in = s.getInputStream();
    return RawHttp.readResponse(in).status();
  }

  @Test
  void underscoreFieldsAreDroppedByDefault() throws Exception {
    Fairway f = start(config());
    assertThat(RawHttp.exchange(f.proxyPort(), "GET / HTTP/1.1\r\nHost: a\r\nX_User: admin\r\nX-User: bob\r\n\r\n").status())
        .isEqualTo(200);
    assertThat(lastHeaders.get().contains("X_User")).isFalse();
    assertThat(lastHeaders.get().get("X-User")).isEqualTo("bob");
  }

  @Test
  void underscoreFieldsAreRejectedWhenConfigured() throws Exception {
    Fairway f = start(config().proxy("underscoreHeaders", "reject"));
    RawHttp.Closing c = RawHttp.exchangeAndClose(f.proxyPort(), "GET / HTTP/1.1\r\nHost: a\r\nX_User: admin\r\n\r\n");
    assertThat(c.response().status()).isEqualTo(400);
    assertThat(c.response().body()).isEqualTo(Failure.UNDERSCORE_HEADER.reason() + "\n");
    assertThat(backend.requests()).isZero();
  }

  @Test
  void clientForwardedFieldsAreOverwrittenWithoutTrustedHops() throws Exception {
    Fairway f = start(config());
    RawHttp.exchange(f.proxyPort(), "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 6.6.6.6\r\n"
        + "X-Forwarded-Proto: https\r\nX-Forwarded-Host: evil\r\n\r\n");
    assertThat(lastHeaders.get().getAll("X-Forwarded-For")).containsExactly("127.0.0.1");
    assertThat(lastHeaders.get().get("X-Forwarded-Proto")).isEqualTo("http");
    assertThat(lastHeaders.get().get("X-Forwarded-Host")).isEqualTo("a");
    assertThat(lastHeaders.get().get("Via")).isEqualTo("1.1 fairway");
  }

  @Test
  void trustedHopsKeepTheirForwardedFields() throws Exception {
    Fairway f = start(config().proxy("trustedHops", 1));
    RawHttp.exchange(f.proxyPort(), "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 6.6.6.6, 10.0.0.1\r\n"
        + "X-Forwarded-Proto: https\r\nX-Forwarded-Host: shop.example\r\nVia: 1.1 lb\r\n\r\n");
    assertThat(lastHeaders.get().get("X-Forwarded-For")).isEqualTo("10.0.0.1, 127.0.0.1");
    assertThat(lastHeaders.get().get("X-Forwarded-Proto")).isEqualTo("https");
    assertThat(lastHeaders.get().get("X-Forwarded-Host")).isEqualTo("shop.example");
    assertThat(lastHeaders.get().get("Via")).isEqualTo("1.1 lb, 1.1 fairway");
  }

  @Test
  void forwardedIsReplacedByThisHopsElementWithoutTrustedHops() throws Exception {
    Fairway f = start(config());
    RawHttp.exchange(f.proxyPort(), "GET / HTTP/1.1\r\nHost: shop.example:8080\r\n"
        + "Forwarded: for=6.6.6.6;proto=https\r\n\r\n");
    assertThat(lastHeaders.get().getAll("Forwarded"))
        .containsExactly("for=127.0.0.1;proto=http;host=\"shop.example:8080\"");
  }

  @Test
  void trustedHopsKeepTheLastForwardedElements() throws Exception {
    Fairway f = start(config().proxy("trustedHops", 1));
    RawHttp.exchange(f.proxyPort(), "GET / HTTP/1.1\r\nHost: a\r\nForwarded: for=6.6.6.6\r\n"
        + "Forwarded: for=\"[2001:db8::1]\";proto=https\r\n\r\n");
    assertThat(lastHeaders.get().getAll("Forwarded"))
        .containsExactly("for=\"[2001:db8::1]\";proto=https, for=127.0.0.1;proto=http;host=a");
  }
}
