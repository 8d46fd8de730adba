package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.junit5.VertxExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * HTTP/1.1 protocol edges of the Netty request path (pipelining, HTTP/1.0, close-delimited and
 * chunked response bodies, {@code 100-continue}, {@code HEAD}, bodiless statuses, Fairway's own
 * 404) between a raw client socket, a real Fairway and real loopback backends.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ProtocolEdgesTest {
  private Vertx vertx;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  // 1. pipelining

  @Test
  void pipelinedRequestsAreAnsweredInRequestOrder() throws Exception {
    TestBackend b = pathEchoBackend();
    Fairway fairway = start(TestConfig.service("web", backend("b", b.port(), 10)));

    try (Socket s = open(fairway)) {
      // /slow is answered 300 ms late: answered concurrently, /b and /c would overtake it
      send(s, "GET /slow HTTP/1.1\r\nHost: a\r\n\r\n"
          + "GET /b HTTP/1.1\r\nHost: a\r\n\r\n"
          + "GET /c HTTP/1.1\r\nHost: a\r\n\r\n");
      List<String> bodies = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Wire r = read(s.getInputStream(), false);
        assertThat(r.status()).as("response %d: %s", i, r).isEqualTo(200);
        bodies.add(r.body());
      }
      assertThat(bodies).containsExactly("GET /slow ", "GET /b ", "GET /c ");
    }
    assertThat(b.requests()).isEqualTo(3);
    assertThat(b.peak()).as("pipelined requests go to the backend one at a time").isEqualTo(1);
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void pipelinedRequestWithBodyBehindAnotherIsForwardedWhole() throws Exception {
    TestBackend b = pathEchoBackend();
    // responseMs 1500: a request body stuck in the proxy shows as a 504 rather than a hang
    Fairway fairway = start(TestConfig.service("web", backend("b", b.port(), 10)).timeouts(2000, 1500));

    try (Socket s = open(fairway)) {
      send(s, "GET /slow HTTP/1.1\r\nHost: a\r\n\r\n"
          + "POST /b HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"
          + "GET /c HTTP/1.1\r\nHost: a\r\n\r\n");
      List<String> answers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Wire r = read(s.getInputStream(), false);
        answers.add(r.status() + " " + r.body());
      }
      assertThat(answers).containsExactly("200 GET /slow ", "200 POST /b hello", "200 GET /c ");
    }
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void brokenBodyOfAPipelinedRequestLetsTheOneBeforeItFinishThenCloses() throws Exception {
    TestBackend b = pathEchoBackend();
    Fairway fairway = start(TestConfig.service("web", backend("b", b.port(), 10)));

    try (Socket s = open(fairway)) {
      // the chunk size "zz" of the second request is invalid; the first is still being answered
      send(s, "GET /slow HTTP/1.1\r\nHost: a\r\n\r\n"
          + "POST /b HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
      Wire first = read(s.getInputStream(), false);
      assertThat(first.status() + " " + first.body()).isEqualTo("200 GET /slow ");
      assertThat(s.getInputStream().read()).as("then the connection closes").isEqualTo(-1);
    }
    assertThat(b.requests()).as("the broken request never reaches the backend").isEqualTo(1);
    TestFairway.assertIdleSoon(fairway);
  }

  // 2. HTTP/1.0 clients

  @Test
  void http10RequestWithoutKeepAliveIsAnsweredAndClosed() throws Exception {
    TestBackend b = pathEchoBackend();
    Fairway fairway = start(TestConfig.service("web", backend("b", b.port(), 10)));

    try (Socket s = open(fairway)) {
      send(s, "GET /one HTTP/1.0\r\n\r\n");
      Wire r = read(s.getInputStream(), false);
      assertThat(r.status()).as("%s", r).isEqualTo(200);
      assertThat(r.statusLine()).startsWith("HTTP/1.");
      assertThat(r.body()).isEqualTo("GET /one ");
      assertThat(r.all("Connection")).as("%s", r).noneMatch(v -> v.equalsIgnoreCase("keep-alive"));
      assertThat(awaitClosed(s)).as("an HTTP/1.0 connection without keep-alive closes after the response").isTrue();
    }
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void http10RequestWithKeepAliveKeepsTheConnection() throws Exception {
    TestBackend b = pathEchoBackend();
    Fairway fairway = start(TestConfig.service("web", backend("b", b.port(), 10)));

    try (Socket s = open(fairway)) {
      send(s, "GET /one HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\n\r\n");
      Wire first = read(s.getInputStream(), false);
      assertThat(first.status()).as("%s", first).isEqualTo(200);
      assertThat(first.body()).isEqualTo("GET /one ");
      assertThat(first.all("Connection")).as("%s", first).anyMatch(v -> v.equalsIgnoreCase("keep-alive"));
      assertThat(first.all("Content-Length")).as("%s", first).containsExactly("9");

      send(s, "GET /two HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\n\r\n");
      Wire second = read(s.getInputStream(), false);
      assertThat(second.status()).as("%s", second).isEqualTo(200);
      assertThat(second.body()).isEqualTo("GET /two ");

      send(s, "GET /three HTTP/1.0\r\nHost: a\r\n\r\n");
      Wire third = read(s.getInputStream(), false);
      assertThat(third.body()).isEqualTo("GET /three ");
      assertThat(awaitClosed(s)).as("no keep-alive on the last request: closed after it").isTrue();
    }
    assertThat(b.requests()).isEqualTo(3);
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void http11RequestWithConnectionCloseIsAnsweredAndClosed() throws Exception {
    TestBackend b = pathEchoBackend();
    Fairway fairway = start(TestConfig.service("web", backend("b", b.port(), 10)));

    try (Socket s = open(fairway)) {
      send(s, "GET /one HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
      Wire r = read(s.getInputStream(), false);
      assertThat(r.status()).as("%s", r).isEqualTo(200);
      assertThat(r.body()).isEqualTo("GET /one ");
      assertThat(r.all("Connection")).as("%s", r).anyMatch(v -> v.equalsIgnoreCase("close"));
      assertThat(awaitClosed(s)).as("the client asked for the connection to close after this response").isTrue();
    }
    TestFairway.assertIdleSoon(fairway);
  }

  // 3. close-delimited backend body

  @Test
  void closeDelimitedBackendBodyIsChunkedForHttp11AndCloseDelimitedForHttp10() throws Exception {
    String body = "first;" + "x".repeat(20_000) + ";last";
    try (WireBackend b = WireBackend.start((head, in, out) -> {
      write(out, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" + body.substring(0, 6));
      Thread.sleep(50); // the body comes in two parts, the second after the head was relayed
      write(out, body.substring(6));
      return false; // the close ends the body
    })) {
      Fairway fairway = start(TestConfig.service("web", backend("b", b.port(), 10)));

      try (Socket s = open(fairway)) {
        for (int i = 0; i < 2; i++) {
          send(s, "GET /until-close HTTP/1.1\r\nHost: a\r\n\r\n");
          Wire r = read(s.getInputStream(), false);
          assertThat(r.status()).as("request %d: %s", i, r).isEqualTo(200);
          assertThat(r.all("Transfer-Encoding")).as("request %d: %s", i, r).containsExactly("chunked");
          assertThat(r.all("Content-Length")).as("%s", r).isEmpty();
          assertThat(r.all("Connection")).as("%s", r).noneMatch(v -> v.equalsIgnoreCase("close"));
          assertThat(r.body()).as("request %d", i).isEqualTo(body);
        }
      }

      try (Socket s = open(fairway)) {
        send(s, "GET /until-close HTTP/1.0\r\nHost: a\r\n\r\n");
        Wire r = read(s.getInputStream(), false);
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        assertThat(r.all("Transfer-Encoding")).as("an HTTP/1.0 client cannot decode chunks: %s", r).isEmpty();
        assertThat(r.body()).as("read until the connection closed").isEqualTo(body);
        assertThat(awaitClosed(s)).isTrue();
      }
      assertThat(b.heads()).hasSize(3);
      TestFairway.assertIdleSoon(fairway);
    }
  }

  // 4. chunked backend body

  @Test
  void chunkedBackendBodyReachesTheClientComplete() throws Exception {
    String big = "y".repeat(20_000);
    try (WireBackend b = WireBackend.start((head, in, out) -> {
      write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n5\r\nhello\r\n");
      Thread.sleep(30);
      write(out, Integer.toHexString(big.length()) + "\r\n" + big + "\r\n");
      Thread.sleep(30);
      write(out, "6\r\n world\r\n0\r\n\r\n");
      return true;
    })) {
      Fairway fairway = start(TestConfig.service("web", backend("b", b.port(), 10)));

      try (Socket s = open(fairway)) {
        for (int i = 0; i < 2; i++) {
          send(s, "GET /chunks HTTP/1.1\r\nHost: a\r\n\r\n");
          Wire r = read(s.getInputStream(), false);
          assertThat(r.status()).as("request %d: %s", i, r).isEqualTo(200);
          assertThat(r.all("Transfer-Encoding")).as("%s", r).containsExactly("chunked");
          assertThat(r.body()).as("request %d", i).isEqualTo("hello" + big + " world");
        }
      }
      assertThat(b.heads()).hasSize(2);
      assertThat(b.connectionOf(1)).as("the backend connection was kept: the proxy found the end of the chunks")
          .isEqualTo(b.connectionOf(0));
      TestFairway.assertIdleSoon(fairway);
    }
  }

  // 5. Expect: 100-continue

  @Test
  void expectContinueIsAnsweredByFairwayAndNotForwarded() throws Exception {
    AtomicReference<MultiMap> seen = new AtomicReference<>();
    TestBackend b = TestBackend.start(vertx, req -> {
      seen.set(MultiMap.caseInsensitiveMultiMap().addAll(req.headers()));
      req.body().onSuccess(body -> req.response().end("echo:" + body));
    });
    Fairway fairway = start(TestConfig.service("web", backend("b", b.port(), 10)));

    try (Socket s = open(fairway)) {
      send(s, "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n");
      Wire interim = readWithin(s, 2000, true);
      assertThat(interim).as("an interim response within 2 s, before any body byte was sent").isNotNull();
      assertThat(interim.rawHead()).isEqualTo("HTTP/1.1 100 Continue");

      send(s, "hello world");
      Wire r = read(s.getInputStream(), false);
      assertThat(r.status()).as("%s", r).isEqualTo(200);
      assertThat(r.body()).isEqualTo("echo:hello world");
    }
    assertThat(seen.get().names()).map(n -> n.toLowerCase(Locale.ROOT)).doesNotContain("expect");
    assertThat(seen.get().get("Content-Length")).isEqualTo("11");
    TestFairway.assertIdleSoon(fairway);
  }

  // 6. HEAD

  @Test
  void headResponseHasTheLengthButNoBodyAndTheConnectionGoesOn() throws Exception {
    try (WireBackend b = WireBackend.start((head, in, out) -> {
      if (head.startsWith("HEAD ")) {
        write(out, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\n");
      } else {
        write(out, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world");
      }
      return true;
    })) {
      Fairway fairway = start(TestConfig.service("web", backend("b", b.port(), 10)));

      try (Socket s = open(fairway)) {
        send(s, "HEAD /doc HTTP/1.1\r\nHost: a\r\n\r\n");
        Wire head = read(s.getInputStream(), true);
        assertThat(head.status()).as("%s", head).isEqualTo(200);
        assertThat(head.all("Content-Length")).as("%s", head).containsExactly("11");
        assertThat(head.all("Transfer-Encoding")).as("%s", head).isEmpty();
        assertThat(strayBytes(s)).as("bytes after the HEAD response head").isEmpty();

        send(s, "GET /doc HTTP/1.1\r\nHost: a\r\n\r\n");
        Wire get = read(s.getInputStream(), false);
        assertThat(get.status()).as("%s", get).isEqualTo(200);
        assertThat(get.body()).isEqualTo("hello world");
      }
      assertThat(b.heads()).extracting(h -> h.substring(0, h.indexOf(' '))).containsExactly("HEAD", "GET");
      TestFairway.assertIdleSoon(fairway);
    }
  }

  @Test
  void headAndChunkedAnswersAlternateOnOneConnection() throws Exception {
    String chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    try (WireBackend b = WireBackend.start((head, in, out) -> {
      // a HEAD answer may carry the framing field of the GET answer it stands for, and no body
      write(out, head.startsWith("HEAD ") ? chunked : chunked + "5\r\nhello\r\n0\r\n\r\n");
      return true;
    })) {
      Fairway fairway = start(TestConfig.service("web", backend("b", b.port(), 10)));

      try (Socket s = open(fairway)) {
        for (int i = 0; i < 2; i++) {
          send(s, "HEAD /doc HTTP/1.1\r\nHost: a\r\n\r\n");
          Wire head = read(s.getInputStream(), true);
          assertThat(head.status()).as("%s", head).isEqualTo(200);
          assertThat(strayBytes(s)).as("round %d: bytes after the HEAD response head", i).isEmpty();

          send(s, "GET /doc HTTP/1.1\r\nHost: a\r\n\r\n");
          Wire get = read(s.getInputStream(), false);
          assertThat(get.all("Transfer-Encoding")).as("%s", get).containsExactly("chunked");
          assertThat(get.body()).as("round %d", i).isEqualTo("hello");
        }
      }
      TestFairway.assertIdleSoon(fairway);
    }
  }

  // 7. 204 and 304

  @Test
  void noContentAndNotModifiedKeepTheConnectionUsable() throws Exception {
    try (WireBackend b = WireBackend.start((head, in, out) -> {
      if (head.startsWith("GET /204 ")) {
        write(out, "HTTP/1.1 204 No Content\r\nX-Kind: none\r\n\r\n");
      } else if (head.startsWith("GET /304 ")) {
        // a 304 may carry the Content-Length of the representation it stands for, never a body
        write(out, "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nContent-Length: 5\r\n\r\n");
      } else {
        write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      }
      return true;
    })) {
      Fairway fairway = start(TestConfig.service("web", backend("b", b.port(), 10)));

      try (Socket s = open(fairway)) {
        send(s, "GET /204 HTTP/1.1\r\nHost: a\r\n\r\n");
        Wire noContent = read(s.getInputStream(), true);
        assertThat(noContent.status()).as("%s", noContent).isEqualTo(204);
        assertThat(noContent.all("X-Kind")).containsExactly("none");
        assertThat(noContent.all("Transfer-Encoding")).as("%s", noContent).isEmpty();
        assertThat(strayBytes(s)).as("bytes after the 204 head").isEmpty();

        send(s, "GET /304 HTTP/1.1\r\nHost: a\r\nIf-None-Match: \"v1\"\r\n\r\n");
        Wire notModified = read(s.getInputStream(), true);
        assertThat(notModified.status()).as("%s", notModified).isEqualTo(304);
        assertThat(notModified.all("ETag")).containsExactly("\"v1\"");
        assertThat(notModified.all("Transfer-Encoding")).as("%s", notModified).isEmpty();
        assertThat(strayBytes(s)).as("bytes after the 304 head").isEmpty();

        send(s, "GET /ok HTTP/1.1\r\nHost: a\r\n\r\n");
        Wire ok = read(s.getInputStream(), false);
        assertThat(ok.status()).as("%s", ok).isEqualTo(200);
        assertThat(ok.body()).isEqualTo("ok");
      }
      assertThat(b.heads()).hasSize(3);
      assertThat(b.connectionOf(2)).as("the backend connection was kept over the bodiless responses")
          .isEqualTo(b.connectionOf(0));
      TestFairway.assertIdleSoon(fairway);
    }
  }

  // 8. no matching service

  @Test
  void unmatchedPathGets404WithoutABodyForHeadAndTheConnectionServesTheNextRequest() throws Exception {
    TestBackend b = pathEchoBackend();
    TestConfig config = TestConfig.service("api", backend("b", b.port(), 10));
    config.lastService().getJsonObject("match").put("pathPrefix", "/api");
    Fairway fairway = start(config);

    try (Socket s = open(fairway)) {
      send(s, "GET /other HTTP/1.1\r\nHost: a\r\n\r\n");
      Wire miss = read(s.getInputStream(), false);
      assertThat(miss.status()).as("%s", miss).isEqualTo(404);
      assertThat(miss.body()).isEqualTo("no service matches this host and path\n");
      assertThat(miss.all("Connection")).as("%s", miss).noneMatch(v -> v.equalsIgnoreCase("close"));

      send(s, "HEAD /other HTTP/1.1\r\nHost: a\r\n\r\n");
      Wire headMiss = read(s.getInputStream(), true);
      assertThat(headMiss.status()).as("%s", headMiss).isEqualTo(404);
      assertThat(headMiss.all("Content-Length")).as("%s", headMiss).containsExactly("38");
      assertThat(strayBytes(s)).as("bytes after the head of Fairway's own answer to HEAD").isEmpty();

      send(s, "GET /api/x HTTP/1.1\r\nHost: a\r\n\r\n");
      Wire hit = read(s.getInputStream(), false);
      assertThat(hit.status()).as("%s", hit).isEqualTo(200);
      assertThat(hit.body()).isEqualTo("GET /api/x ");
    }
    assertThat(b.requests()).isEqualTo(1);
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void thousandsOfPipelinedRequestsThatFailAtOnceAreAllAnsweredInOrder() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> vertx.setTimer(300, t -> answer(req, "slow")));
    TestConfig config = TestConfig.service("api", backend("b", b.port(), 10));
    config.lastService().getJsonObject("match").put("pathPrefix", "/api");
    Fairway fairway = start(config);
    int misses = 5000;

    try (Socket s = open(fairway)) {
      StringBuilder burst = new StringBuilder("GET /api/slow HTTP/1.1\r\nHost: a\r\n\r\n");
      for (int i = 0; i < misses; i++) {
        burst.append("GET /other/").append(i).append(" HTTP/1.1\r\nHost: a\r\n\r\n");
      }
      send(s, burst.toString());
      assertThat(read(s.getInputStream(), false).body()).isEqualTo("GET /api/slow slow");
      for (int i = 0; i < misses; i++) {
        Wire miss = read(s.getInputStream(), false);
        assertThat(miss.status()).as("answer %d: %s", i, miss).isEqualTo(404);
      }
      send(s, "GET /api/after HTTP/1.1\r\nHost: a\r\n\r\n");
      assertThat(read(s.getInputStream(), false).body()).isEqualTo("GET /api/after slow");
    }
    TestFairway.assertIdleSoon(fairway);
  }

  // helpers

  private Fairway start(TestConfig config) {
    return TestFairway.start(vertx, config.build());
  }

  /** Answers {@code "METHOD /path body"}; {@code /slow} 300 ms late. */
  private TestBackend pathEchoBackend() {
    return TestBackend.start(vertx, req -> req.body().onSuccess(body -> {
      if (req.path().equals("/slow")) {
        vertx.setTimer(300, t -> answer(req, body.toString()));
      } else {
        answer(req, body.toString());
      }
    }));
  }

  private static void answer(HttpServerRequest req, String body) {
    req.response().end(req.method() + " " + req.path() + " " + body);
  }

  private static Socket open(Fairway fairway) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", fairway.proxyPort()), 5000);
    s.setSoTimeout(5000);
    return s;
  }

  private static void send(Socket s, String bytes) throws IOException {
    write(s.getOutputStream(), bytes);
  }

  private static void write(OutputStream out, String bytes) throws IOException {
    out.write(bytes.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  /** One response if its head arrives within {@code ms}, else {@code null}. */
  private static Wire readWithin(Socket s, int ms, boolean bodiless) throws IOException {
    s.setSoTimeout(ms);
    try {
      return read(s.getInputStream(), bodiless);
    } catch (SocketTimeoutException e) {
      return null;
    } finally {
      s.setSoTimeout(5000);
    }
  }

  /** Whether the peer closes the connection within two seconds (a reset counts as closed). */
  private static boolean awaitClosed(Socket s) throws IOException {
    s.setSoTimeout(2000);
    try {
      return s.getInputStream().read() < 0;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    } finally {
      s.setSoTimeout(5000);
    }
  }

  /** Whatever arrives within 300 ms when nothing should (empty if nothing). */
  private static String strayBytes(Socket s) throws IOException {
    s.setSoTimeout(300);
    byte[] buf = new byte[4096];
    try {
      int n = s.getInputStream().read(buf);
      return n < 0 ? "<closed>" : new String(buf, 0, n, StandardCharsets.ISO_8859_1);
    } catch (SocketTimeoutException e) {
      return "";
    } finally {
      s.setSoTimeout(5000);
    }
  }

  /** One response as read off the wire: its head as sent (without the blank line), fields and decoded body. */
  private record Wire(String rawHead, List<String[]> fields, String body) {
    String statusLine() {
      return rawHead.split("\r\n", 2)[0];
    }

    int status() {
      return Integer.parseInt(statusLine().split(" ")[1]);
    }

    List<String> all(String name) {
      List<String> out = new ArrayList<>();
      for (String[] f : fields) {
        if (f[0].equalsIgnoreCase(name)) {
          out.add(f[1]);
        }
      }
      return out;
    }

    @Override
    public String toString() {
      return rawHead.replace("\r\n", " | ") + " || body " + body.length() + " bytes: "
          + (body.length() > 60 ? body.substring(0, 60) + "..." : body);
    }
  }

  /**
   * Reads one response: its head, then a body framed by chunks, {@code Content-Length} or the
   * connection's close ({@code bodiless}: none, as for HEAD, 1xx, 204 and 304).
   */
  private static Wire read(InputStream in, boolean bodiless) throws IOException {
    String head = RawHttp.readHead(in);
    List<String[]> fields = new ArrayList<>();
    String[] lines = head.split("\r\n");
    boolean chunked = false;
    long length = -1;
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      String name = lines[i].substring(0, colon);
      String value = lines[i].substring(colon + 1).trim();
      fields.add(new String[] {name, value});
      if (name.equalsIgnoreCase("transfer-encoding") && value.equalsIgnoreCase("chunked")) {
        chunked = true;
      } else if (name.equalsIgnoreCase("content-length")) {
        length = Long.parseLong(value);
      }
    }
    byte[] body;
    if (bodiless) {
      body = new byte[0];
    } else if (chunked) {
      body = readChunks(in);
    } else if (length >= 0) {
      body = in.readNBytes((int) length);
      if (body.length < length) {
        throw new IOException("closed after " + body.length + " of " + length + " body bytes: " + head);
      }
    } else {
      body = in.readAllBytes();
    }
    return new Wire(head, fields, new String(body, StandardCharsets.ISO_8859_1));
  }

  private static byte[] readChunks(InputStream in) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = readLine(in);
      int size = Integer.parseInt(sizeLine, 16);
      if (size == 0) {
        while (!readLine(in).isEmpty()) {
          // trailer fields
        }
        return body.toByteArray();
      }
      byte[] data = in.readNBytes(size);
      if (data.length < size) {
        throw new IOException("closed inside a chunk after " + body.size() + " body bytes");
      }
      body.write(data);
      String end = readLine(in);
      if (!end.isEmpty()) {
        throw new IOException("chunk data not followed by CRLF but by " + end);
      }
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int prev = -1;
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed inside a line: " + line.toString(StandardCharsets.ISO_8859_1));
      }
      if (prev == '\r' && b == '\n') {
        byte[] bytes = line.toByteArray();
        return new String(bytes, 0, bytes.length - 1, StandardCharsets.ISO_8859_1);
      }
      line.write(b);
      prev = b;
    }
  }

  /** What a {@link WireBackend} does with one request head: writes its answer; {@code true} keeps the connection. */
  @FunctionalInterface
  private interface Script {
    boolean answer(String head, InputStream in, OutputStream out) throws IOException, InterruptedException;
  }

  /**
   * A loopback backend on a blocking {@link ServerSocket} (a daemon thread per connection) that
   * writes exact bytes: it reads each request head and its Content-Length body, and lets a
   * {@link Script} answer. Health checks get a 200 and are not recorded.
   */
  private static final class WireBackend implements AutoCloseable {
    private final ServerSocket server;
    private final Script script;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "wire-backend");
      t.setDaemon(true);
      return t;
    });
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    /** Request heads seen (health checks aside), with the number of the connection each came on. */
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();

    private WireBackend(Script script) throws IOException {
      this.script = script;
      this.server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
      threads.execute(this::acceptLoop);
    }

    static WireBackend start(Script script) throws IOException {
      return new WireBackend(script);
    }

    int port() {
      return server.getLocalPort();
    }

    List<String> heads() {
      return seen.stream().map(Seen::head).toList();
    }

    /** The number of the connection request {@code i} came on. */
    int connectionOf(int i) {
      return seen.get(i).connection();
    }

    private record Seen(int connection, String head) {
    }

    private void acceptLoop() {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          open.add(s);
          int id = accepted.incrementAndGet();
          threads.execute(() -> serve(s, id));
        } catch (IOException e) {
          return;
        }
      }
    }

    private void serve(Socket s, int id) {
      try (s) {
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        while (true) {
          String head;
          try {
            head = RawHttp.readHead(in);
          } catch (IOException e) {
            return; // the proxy closed the connection
          }
          if (head.startsWith("GET /health ")) {
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
            return;
          }
          for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
              in.readNBytes(Integer.parseInt(line.substring(15).trim()));
            }
          }
          seen.add(new Seen(id, head));
          if (!script.answer(head, in, out)) {
            return;
          }
        }
      } catch (IOException | InterruptedException e) {
        // the proxy gave up on this connection
      } finally {
        open.remove(s);
      }
    }

    @Override
    public void close() throws Exception {
      server.close();
      for (Socket s : open) {
        s.close();
      }
      threads.shutdownNow();
      threads.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
