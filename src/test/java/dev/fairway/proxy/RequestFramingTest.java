package dev.fairway.proxy;

import dev.fairway.testing.TestVertx;
import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Malformed or ambiguous request framing (RFC 9112 §5, §6) over raw sockets: each gets 400 with
 * Fairway's one-line reason, the connection is closed, and the backend never sees the request.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class RequestFramingTest {
  private Vertx vertx;
  private TestBackend backend;
  private Fairway fairway;
  private final java.util.concurrent.atomic.AtomicInteger completeBodies = new java.util.concurrent.atomic.AtomicInteger();

  @BeforeAll
  void start() {
    vertx = TestVertx.create();
    backend = TestBackend.start(vertx, req -> req.body().onSuccess(b -> {
      completeBodies.incrementAndGet();
      req.response().end("got " + b.length());
    }));
    fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", backend.port(), 10)).build());
  }

  @AfterAll
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      "both TE and CL|POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      "CL then TE|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
      "TE not ending in chunked|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n",
      "TE gzip only|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\nhello",
      "chunked twice|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      "chunked twice in one field|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
      "TE on HTTP/1.0|POST / HTTP/1.0\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      "CL not a number|POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5x\r\n\r\nhello",
      "CL negative|POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n",
      "CL overflowing|POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n",
      "CL conflicting fields|POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
      "CL conflicting list|POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 6\r\n\r\nhello!",
      "bad chunk size|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
      "overflowing chunk size|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\nhello\r\n0\r\n\r\n",
      "chunk without CRLF|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
      "chunk extension (Netty's decoder refuses them)|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\n\r\n",
      "CL repeated even if equal|POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhello",
      "obs-fold|GET / HTTP/1.1\r\nHost: a\r\nX-Long: one\r\n two\r\n\r\n",
      "whitespace before colon|GET / HTTP/1.1\r\nHost: a\r\nX-Thing : 1\r\n\r\n",
      "whitespace before colon on CL|POST / HTTP/1.1\r\nHost: a\r\nContent-Length : 5\r\n\r\nhello",
      "missing Host|GET / HTTP/1.1\r\nX-A: 1\r\n\r\n",
      "repeated Host|GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
      "bare LF|GET / HTTP/1.1\nHost: a\n\n",
      "space in field name|GET / HTTP/1.1\r\nHost: a\r\nX A: 1\r\n\r\n",
      "bad request line|GET /  HTTP/1.1\r\nHost: a\r\n\r\n",
      "tab in request target|GET /a\tb HTTP/1.1\r\nHost: a\r\n\r\n",
      "control character in request target|GET /a\u0001b HTTP/1.1\r\nHost: a\r\n\r\n",
      "DEL in request target|GET /a\u007fb HTTP/1.1\r\nHost: a\r\n\r\n",
  })
  void malformedFramingGets400AndClose(String labelAndRequest) throws Exception {
    String request = labelAndRequest.substring(labelAndRequest.indexOf('|') + 1);
    int seen = completeBodies.get();

    RawHttp.Closing c = RawHttp.exchangeAndClose(fairway.proxyPort(), request);

    assertThat(c.response().status()).isEqualTo(400);
    assertThat(c.response().body()).isEqualTo(Failure.MALFORMED_REQUEST.reason() + "\n");
    assertThat(c.closed()).as("connection closed after the 400").isTrue();
    assertThat(completeBodies.get()).as("no backend ever gets a malformed request whole").isEqualTo(seen);
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void wellFormedVariantsPass() throws Exception {
    assertThat(RawHttp.exchange(fairway.proxyPort(),
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n").body())
        .isEqualTo("got 5");
    assertThat(RawHttp.exchange(fairway.proxyPort(),
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n").body())
        .isEqualTo("got 5");
    assertThat(RawHttp.exchange(fairway.proxyPort(), "\r\nGET / HTTP/1.0\r\n\r\n").status()).isEqualTo(200);
  }

  @Test
  void keepAliveRequestsAfterBodiesAreCheckedToo() throws Exception {
    String ok = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello";
    String smuggled = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", fairway.proxyPort())) {
      s.setSoTimeout(5000);
      s.getOutputStream().write((ok + smuggled).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
      assertThat(RawHttp.readResponse(s.getInputStream()).body()).isEqualTo("got 5");
      RawHttp.Closing second = RawHttp.readAndAwaitClose(s);
      assertThat(second.response().status()).isEqualTo(400);
      assertThat(second.closed()).isTrue();
    }
  }
}
