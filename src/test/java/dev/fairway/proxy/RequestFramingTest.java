package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.TestVertx;
import io.vertx.core.Vertx;
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
      "chunk size of 2^32 (Netty's int reads 0)|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n100000000\r\n\r\nGET /s HTTP/1.1\r\nHost: a\r\n\r\n",
      "chunk size of 2^31|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n80000000\r\nhello\r\n0\r\n\r\n",
      "chunk extension without a name|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;=1\r\nhello\r\n0\r\n\r\n",
      "control character in a trailer|POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: a\u0001\r\n\r\n",
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
      "SOH in a field value|GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u0001b\r\n\r\n",
      "VT in a field value|GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u000bb\r\n\r\n",
      "DEL in a field value|GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u007fb\r\n\r\n",
      "absolute form with userinfo|GET http://user:pw@a/ HTTP/1.1\r\nHost: a\r\n\r\n",
      "absolute form naming another host|GET http://evil.example/ HTTP/1.1\r\nHost: a\r\n\r\n",
      "Host with userinfo|GET / HTTP/1.1\r\nHost: user@a\r\n\r\n",
      "Host as a list|GET / HTTP/1.1\r\nHost: a, b\r\n\r\n",
      "Host with a path|GET / HTTP/1.1\r\nHost: a/b\r\n\r\n",
      "Host with a bad port|GET / HTTP/1.1\r\nHost: a:8x\r\n\r\n",
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
    assertThat(RawHttp.exchange(fairway.proxyPort(), "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "5;ext=1\r\nhello\r\n3 ; q=\"a b\";z\r\nabc\r\n0;last\r\n\r\n").body()).as("chunk extensions (RFC 9112 §7.1.1)")
        .isEqualTo("got 8");
    assertThat(RawHttp.exchange(fairway.proxyPort(), "GET http://A:80/ HTTP/1.1\r\nHost: a:80\r\n\r\n").status())
        .as("an absolute-form target naming the Host").isEqualTo(200);
    assertThat(RawHttp.exchange(fairway.proxyPort(), "GET / HTTP/1.1\r\nHost: a\r\nX-A: a\tb\r\n\r\n").status())
        .as("HTAB in a field value").isEqualTo(200);
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
