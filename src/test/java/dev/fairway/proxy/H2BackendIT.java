package dev.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.H2ScriptBackend;
import dev.fairway.testing.RawH2;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.VertxTestBase;
import io.netty.handler.codec.http2.Http2Error;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code h2c://} backends behind Fairway, with a scripted Netty HTTP/2 backend that writes down
 * what it reads: HTTP/1.1 clients are served over HTTP/2 with trailers passed both ways in chunks,
 * HTTP/2 clients' trailers reach it, a refused stream is retried on another backend, a GOAWAY
 * sends the next request to a new connection, an {@code Upgrade} is refused, and health checks
 * speak HTTP/2 too.
 */
class H2BackendIT extends VertxTestBase {
  private final List<H2ScriptBackend> backends = new ArrayList<>();

  @AfterEach
  void closeBackends() throws Exception {
    for (H2ScriptBackend b : backends) {
      b.close();
    }
  }

  private H2ScriptBackend backend(H2ScriptBackend b) {
    backends.add(b);
    return b;
  }

  private static JsonObject h2c(String id, H2ScriptBackend b) {
    return new JsonObject().put("id", id).put("url", "h2c://127.0.0.1:" + b.port()).put("capacity", 10);
  }

  private Fairway start(JsonObject... backends) {
    return TestFairway.start(vertx, TestConfig.service("h2", backends).healthCheck(3_600_000, 1000, 1, 3).build());
  }

  /** Sends {@code request} (which asks to close) and reads the whole answer as text. */
  private static String exchange(int port, String request) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void anHttp11ClientIsServedOverHttp2AndGetsTheResponseTrailersInTheLastChunk() throws Exception {
    H2ScriptBackend b = backend(H2ScriptBackend.start());
    Fairway fw = start(h2c("b1", b));

    String answer = exchange(fw.proxyPort(), "GET /a HTTP/1.1\r\nHost: shop\r\nTE: trailers\r\nConnection: close\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 200 OK\r\n").containsIgnoringCase("transfer-encoding: chunked")
        .endsWith("\r\n6\r\nh2 /a \r\n0\r\nx-checksum: 42\r\n\r\n").doesNotContainIgnoringCase("x-http2-");
    H2ScriptBackend.Request seen = b.requests().stream().filter(r -> r.path().equals("/a")).findFirst().orElseThrow();
    assertThat(List.of(seen.headers().method().toString(), seen.headers().authority().toString(),
        seen.headers().scheme().toString(), String.valueOf(seen.headers().get("te")),
        String.valueOf(seen.headers().get("via")))).containsExactly("GET", "shop", "http", "trailers", "1.1 fairway");
    TestFairway.assertIdleSoon(fw);
  }

  @Test
  void chunkedRequestTrailersReachTheHttp2BackendWithoutFieldsThatMustNeverBeTrailers() throws Exception {
    H2ScriptBackend b = backend(H2ScriptBackend.start());
    Fairway fw = start(h2c("b1", b));

    String answer = exchange(fw.proxyPort(), "POST /p HTTP/1.1\r\nHost: shop\r\nTransfer-Encoding: chunked\r\n"
        + "Connection: close\r\n\r\n2\r\nhi\r\n0\r\nX-Sum: 7\r\nAuthorization: Basic YTpi\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 200 OK\r\n").contains("h2 /p hi");
    H2ScriptBackend.Request seen = b.requests().stream().filter(r -> r.path().equals("/p")).findFirst().orElseThrow();
    assertThat(seen.body()).isEqualTo("hi");
    assertThat(seen.trailers()).isEqualTo(Map.of("x-sum", "7"));
  }

  @Test
  void anHttp2ClientsRequestTrailersReachTheHttp2Backend() throws Exception {
    H2ScriptBackend b = backend(H2ScriptBackend.start());
    Fairway fw = start(h2c("b1", b));

    String answer = RawH2.requestWithBody(fw.proxyPort(), "twelve bytes", new String[] {"x-checksum", "abc"},
        ":method", "POST", ":path", "/t", ":scheme", "http", ":authority", "a");

    assertThat(answer).isEqualTo("status 200: h2 /t twelve bytes");
    H2ScriptBackend.Request seen = b.requests().stream().filter(r -> r.path().equals("/t")).findFirst().orElseThrow();
    assertThat(seen.trailers()).isEqualTo(Map.of("x-checksum", "abc"));
    assertThat(seen.headers().names()).noneMatch(n -> n.toString().startsWith("x-http2-"));
  }

  @Test
  void anHttp2ClientGetsTheHttp2BackendsHeadAndTrailersByTheForwardingRules() throws Exception {
    H2ScriptBackend b = backend(H2ScriptBackend.start());
    Fairway fw = start(h2c("b1", b));

    String answer = RawH2.fieldsOf(fw.proxyPort(), "hi", ":method", "POST", ":path", "/fields", ":scheme", "http",
        ":authority", "shop", "te", "trailers", "x-forwarded-for", "6.6.6.6");

    assertThat(answer).isEqualTo("200 [content-type: text/plain, x-kept: k, via: 2 backend, 1.1 fairway, x-request-id] "
        + "h2 /fields hi [x-checksum: 42]");
    H2ScriptBackend.Request seen = b.requests().stream().filter(r -> r.path().equals("/fields")).findFirst().orElseThrow();
    assertThat(seen.headers().toString()).matches("DefaultHttp2Headers\\[:method: POST, :path: /fields, :authority: shop, "
        + ":scheme: http, x-request-id: [0-9a-f]{32}, x-fairway-attempt: 1, x-criticality: critical, "
        + "x-forwarded-for: 127.0.0.1, x-forwarded-proto: http, "
        + "x-forwarded-host: shop, forwarded: for=127.0.0.1;proto=http;host=shop, via: 2 fairway, te: trailers]");
  }

  @Test
  void chunkedRequestAndResponseTrailersPassThroughAnHttp11Backend() throws Exception {
    CompletableFuture<String> got = new CompletableFuture<>();
    NetServer h1 = vertx.createNetServer().connectHandler(socket -> {
      StringBuilder text = new StringBuilder();
      socket.handler(data -> {
        text.append(data.toString(StandardCharsets.ISO_8859_1));
        if (text.indexOf("GET /health") == 0) {
          socket.write("HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").onComplete(v -> socket.close());
        } else if (text.indexOf("\r\n0\r\n") > 0 && text.toString().endsWith("\r\n\r\n")) {
          got.complete(text.toString());
          socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nx-checksum: 9\r\n"
              + "content-length: 99\r\n\r\n");
        }
      });
    });
    int port = h1.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS).actualPort();
    Fairway fw = start(new JsonObject().put("id", "h1").put("url", "http://127.0.0.1:" + port).put("capacity", 10));

    String answer = exchange(fw.proxyPort(), "POST /p HTTP/1.1\r\nHost: shop\r\nTransfer-Encoding: chunked\r\n"
        + "Connection: close\r\n\r\n2\r\nhi\r\n0\r\nX-Sum: 7\r\n\r\n");

    assertThat(got.get(10, TimeUnit.SECONDS)).endsWith("\r\n\r\n2\r\nhi\r\n0\r\nX-Sum: 7\r\n\r\n");
    assertThat(answer).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n2\r\nok\r\n0\r\nx-checksum: 9\r\n\r\n");
  }

  @Test
  void aStreamRefusedByOneBackendIsRetriedOnTheOther() throws Exception {
    H2ScriptBackend refusing = backend(H2ScriptBackend.refusing());
    H2ScriptBackend good = backend(H2ScriptBackend.start());
    Fairway fw = start(h2c("r", refusing), h2c("g", good));

    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      answers.add(exchange(fw.proxyPort(), "GET /x HTTP/1.1\r\nHost: shop\r\nConnection: close\r\n\r\n")
          .substring(0, 15));
    }

    assertThat(answers).containsOnly("HTTP/1.1 200 OK");
    assertThat(refusing.refused()).isGreaterThanOrEqualTo(1);
    TestFairway.assertIdleSoon(fw);
  }

  @Test
  void aRefusedPostIsRetriedOnTheOtherBackendWithItsBodyAndTrailers() throws Exception {
    H2ScriptBackend refusing = backend(H2ScriptBackend.refusing());
    H2ScriptBackend good = backend(H2ScriptBackend.start());
    Fairway fw = start(h2c("r", refusing), h2c("g", good));

    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 8; i++) { // two of each in turn: each kind meets both backends
      if (i % 4 < 2) {
        String whole = exchange(fw.proxyPort(), "POST /p HTTP/1.1\r\nHost: shop\r\nContent-Length: 5\r\n"
            + "Connection: close\r\n\r\nhello");
        answers.add(whole.substring(0, 15) + " " + whole.contains("h2 /p hello"));
      } else {
        answers.add(RawH2.requestWithBody(fw.proxyPort(), "twelve bytes", new String[] {"x-checksum", "abc"},
            ":method", "POST", ":path", "/t", ":scheme", "http", ":authority", "a"));
      }
    }

    assertThat(answers).containsOnly("HTTP/1.1 200 OK true", "status 200: h2 /t twelve bytes");
    assertThat(refusing.refused()).as("streams refused").isGreaterThanOrEqualTo(3);
    assertThat(good.requests().stream().filter(r -> !r.path().equals("/health"))
        .map(r -> r.body() + " " + r.trailers()).distinct().sorted().toList())
        .containsExactly("hello {}", "twelve bytes {x-checksum=abc}");
    TestFairway.assertIdleSoon(fw);
  }

  @Test
  void aPostAboveAGoawaysLastStreamIdIsRetriedOnTheOtherBackendWithItsBody() throws Exception {
    H2ScriptBackend leaving = backend(H2ScriptBackend.goingAway());
    H2ScriptBackend good = backend(H2ScriptBackend.start());
    Fairway fw = start(h2c("l", leaving), h2c("g", good));

    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      answers.add(RawH2.requestWithBody(fw.proxyPort(), "call " + i, new String[0],
          ":method", "POST", ":path", "/rpc", ":scheme", "http", ":authority", "a", "content-type", "application/grpc"));
    }

    assertThat(answers).containsExactly("status 200: h2 /rpc call 0", "status 200: h2 /rpc call 1",
        "status 200: h2 /rpc call 2", "status 200: h2 /rpc call 3");
    assertThat(leaving.unprocessed()).as("streams left above the last stream id").isGreaterThanOrEqualTo(1);
    TestFairway.assertIdleSoon(fw);
  }

  @Test
  void afterABackendsGoawayTheNextRequestGoesOnANewConnection() throws Exception {
    H2ScriptBackend b = backend(H2ScriptBackend.start());
    Fairway fw = start(h2c("b1", b));

    String first = exchange(fw.proxyPort(), "GET /goaway HTTP/1.1\r\nHost: shop\r\nConnection: close\r\n\r\n");
    Thread.sleep(200); // the GOAWAY follows the answer
    List<String> next = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      next.add(exchange(fw.proxyPort(), "GET /after HTTP/1.1\r\nHost: shop\r\nConnection: close\r\n\r\n")
          .substring(0, 15));
    }

    assertThat(first).startsWith("HTTP/1.1 200 OK");
    assertThat(next).containsOnly("HTTP/1.1 200 OK");
    int goawayConnection = b.requests().stream().filter(r -> r.path().equals("/goaway")).findFirst().orElseThrow()
        .connection();
    assertThat(b.requests()).filteredOn(r -> r.path().equals("/after")).hasSize(4)
        .noneSatisfy(r -> assertThat(r.connection()).isEqualTo(goawayConnection));
  }

  @Test
  void anHttp11ClientThatHangsUpResetsTheBackendStreamWithCancelAndFreesTheSlot() throws Exception {
    H2ScriptBackend b = backend(H2ScriptBackend.start());
    Fairway fw = start(h2c("b1", b));

    try (Socket s = new Socket("127.0.0.1", fw.proxyPort())) {
      s.getOutputStream().write("GET /hang HTTP/1.1\r\nHost: shop\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (b.hanging() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(fw.slotTable().view().endpoints().get("b1").active()).isEqualTo(1);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (b.resets().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }

    assertThat(b.resets()).containsExactly(Http2Error.CANCEL.code());
    TestFairway.assertIdleSoon(fw);
  }

  @Test
  void aResponseFieldValueWithCrLfFromAnHttp2BackendIsA502NeverASplitResponse() throws Exception {
    H2ScriptBackend b = backend(H2ScriptBackend.start());
    Fairway fw = start(h2c("b1", b));

    String answer = exchange(fw.proxyPort(), "GET /crlf HTTP/1.1\r\nHost: shop\r\nConnection: close\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 502 ").doesNotContainIgnoringCase("evil");
    TestFairway.assertIdleSoon(fw);
  }

  @Test
  void anUpgradeRequestToAnH2cBackendIsRefusedWith502() throws Exception {
    H2ScriptBackend b = backend(H2ScriptBackend.start());
    Fairway fw = start(h2c("b1", b));

    String answer = exchange(fw.proxyPort(), "GET /ws HTTP/1.1\r\nHost: shop\r\nConnection: Upgrade, close\r\n"
        + "Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 502 ").endsWith("the backend speaks HTTP/2, which cannot switch protocols\n");
    assertThat(b.requests()).noneMatch(r -> r.path().equals("/ws"));
    TestFairway.assertIdleSoon(fw);
  }

  @Test
  void healthChecksOfAnH2cBackendSpeakHttp2() throws Exception {
    H2ScriptBackend b = backend(H2ScriptBackend.start());
    TestFairway.start(vertx, TestConfig.service("h2", h2c("b1", b)).healthCheck(100, 1000, 1, 1).build());

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (b.requests().stream().noneMatch(r -> r.path().equals("/health")) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }

    assertThat(b.requests()).anyMatch(r -> r.path().equals("/health"));
  }
}
