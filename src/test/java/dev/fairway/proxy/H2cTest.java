package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.Fairway;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.testing.RawH2;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.StreamResetException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * HTTP/2 from clients by prior knowledge (h2c): real backends, a real Fairway and Vert.x's
 * HTTP/2 client on one connection.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class H2cTest extends VertxTestBase {
  private HttpClientAgent h2;
  /** Connections the HTTP/2 client opened, and how many of them closed. */
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger closed = new AtomicInteger();

  @BeforeEach
  void h2Client() {
    h2 = vertx.httpClientBuilder()
        .with(new HttpClientOptions().setProtocolVersion(io.vertx.core.http.HttpVersion.HTTP_2)
            .setHttp2ClearTextUpgrade(false))
        .with(new PoolOptions().setHttp2MaxSize(1))
        .withConnectHandler(c -> {
          connections.incrementAndGet();
          c.closeHandler(v -> closed.incrementAndGet());
        })
        .build();
  }

  private record Answer(io.vertx.core.http.HttpVersion version, int status, String via, String header, String body) {
  }

  private Answer send(int port, io.vertx.core.http.HttpMethod method, String path, Buffer body) throws Exception {
    return TestClient.onLoop(vertx, () -> h2.request(new RequestOptions().setMethod(method).setPort(port)
            .setHost("127.0.0.1").setURI(path))
        .compose(req -> body == null ? req.send() : req.send(body))
        .compose(resp -> resp.body().map(b -> new Answer(resp.version(), resp.statusCode(), resp.getHeader("via"),
            resp.getHeader("x-seen"), b.toString()))))
        .await(10, TimeUnit.SECONDS);
  }

  @Test
  void aStreamReachesTheBackendAsHttp11WithTheForwardingFieldsAndTheAnswerComesBackAsHttp2() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> {
      List<String> leaked = new ArrayList<>();
      req.headers().names().forEach(n -> {
        if (n.toLowerCase().startsWith("x-http2") || n.startsWith(":")) {
          leaked.add(n);
        }
      });
      req.body().onSuccess(body -> req.response().setStatusCode(201)
          .putHeader("x-seen", req.version() + " host=" + req.getHeader("host") + " xff="
              + req.getHeader("x-forwarded-for") + " proto=" + req.getHeader("x-forwarded-proto") + " via="
              + req.getHeader("via") + " leaked=" + leaked)
          .putHeader("Lame-Duck", "false")
          .end(req.method() + " " + req.uri() + " " + body));
    });
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10)).build());

    Answer a = send(fairway.proxyPort(), io.vertx.core.http.HttpMethod.PUT, "/a?x=1", Buffer.buffer("payload"));

    assertThat(a).isEqualTo(new Answer(io.vertx.core.http.HttpVersion.HTTP_2, 201, "1.1 fairway",
        "HTTP_1_1 host=127.0.0.1:" + fairway.proxyPort() + " xff=127.0.0.1 proto=http via=2 fairway leaked=[]", "PUT /a?x=1 payload"));
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void hopByHopFieldsAndTheBackendsSignalsStayOutOfTheClientsHeaders() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> req.response()
        .putHeader("Lame-Duck", "false")
        .putHeader("endpoint-load-metrics", "TEXT cpu_utilization=0.5")
        .putHeader("Connection", "x-private")
        .putHeader("X-Private", "secret")
        .putHeader("Keep-Alive", "timeout=5")
        .putHeader("X-Kept", "yes")
        .end("ok"));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10)).build());

    List<String> names = TestClient.onLoop(vertx, () -> h2.request(io.vertx.core.http.HttpMethod.GET,
            fairway.proxyPort(), "127.0.0.1", "/")
        .compose(req -> req.send())
        .compose(resp -> resp.body().map(body -> resp.headers().names().stream().sorted().toList())))
        .await(10, TimeUnit.SECONDS);

    assertThat(names).containsExactly("content-length", "via", "x-kept", "x-request-id");
  }

  @Test
  void headsAClientShouldNotSendAreRefusedAndNeverReachTheBackend() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> req.response().end("ok"));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10))
        .proxy("maxHeaderBytes", 1024).proxy("maxRequestLineBytes", 256).build());
    int port = fairway.proxyPort();

    List<String> answers = List.of(
        RawH2.request(port, ":method", "GET", ":path", "/fine", ":scheme", "http", ":authority", "a"),
        RawH2.request(port, ":method", "GET", ":path", "/", ":scheme", "http", ":authority", "a",
            "x-big", "v".repeat(1100)),
        RawH2.request(port, ":method", "GET", ":path", "/", ":scheme", "http", ":authority", "a",
            "x-big", "v".repeat(4000)),
        RawH2.request(port, ":method", "GET", ":path", "/" + "t".repeat(300), ":scheme", "http", ":authority", "a"),
        RawH2.request(port, ":method", "GET", ":path", "/", ":scheme", "http", ":authority", "a",
            "x-injected", "v\r\nX-Smuggled: 1"),
        RawH2.request(port, ":method", "GET", ":path", "/", ":scheme", "http", ":authority", "a",
            "connection", "close"),
        RawH2.request(port, ":method", "G(T", ":path", "/", ":scheme", "http", ":authority", "a"),
        RawH2.request(port, ":method", "GET", ":path", "evil/x", ":scheme", "http", ":authority", "a"),
        RawH2.request(port, ":method", "GET", ":path", "http://evil/x", ":scheme", "http", ":authority", "a"),
        RawH2.request(port, ":method", "OPTIONS", ":path", "*", ":scheme", "http", ":authority", "a"));

    // a head a little over maxRequestLineBytes + maxHeaderBytes gets 431; far over, the connection is refused;
    // a :path is an absolute path (RFC 9113 §8.3.1), or "*" for OPTIONS (which no service's prefix matches)
    assertThat(answers).containsExactly("status 200", "status 431", "goaway", "status 414", "status 400", "reset",
        "status 400", "status 400", "status 400", "status 404");
    assertThat(b.requests()).isEqualTo(1);
  }

  @Test
  void fortyStreamsOnOneConnectionAreForwardedAtOnceAndSpreadOverTheBackends() throws Exception {
    TestBackend b1 = TestBackend.start(vertx, req -> vertx.setTimer(200, t -> req.response().end("b1")));
    TestBackend b2 = TestBackend.start(vertx, req -> vertx.setTimer(200, t -> req.response().end("b2")));
    Fairway fairway = TestFairway.start(vertx,
        TestConfig.service("web", backend("b1", b1.port(), 100), backend("b2", b2.port(), 100)).build());

    List<Future<String>> answers = new ArrayList<>();
    Future<List<String>> all = TestClient.onLoop(vertx, () -> {
      for (int i = 0; i < 40; i++) {
        answers.add(h2.request(io.vertx.core.http.HttpMethod.GET, fairway.proxyPort(), "127.0.0.1", "/" + i)
            .compose(req -> req.send())
            .compose(resp -> resp.body().map(body -> resp.statusCode() + " " + body)));
      }
      return Future.all(answers).map(cf -> answers.stream().map(Future::result).toList());
    });
    List<String> got = all.await(10, TimeUnit.SECONDS);

    assertThat(got).hasSize(40).allMatch(s -> s.equals("200 b1") || s.equals("200 b2"));
    assertThat(got.stream().filter(s -> s.endsWith("b1")).count()).isEqualTo(20);
    assertThat(connections.get()).isEqualTo(1);
    assertThat(b1.peak() + b2.peak()).as("requests in flight at once").isGreaterThan(20);
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void anUploadWaitingForASlotDoesNotHoldUpTheConnectionsOtherStreamsUploadsIncluded() throws Exception {
    TestBackend slow = TestBackend.start(vertx, req -> req.body().onSuccess(body ->
        vertx.setTimer(req.path().equals("/slow/hold") ? 800 : 1, t -> req.response().end("slow " + body.length()))));
    TestBackend fast = TestBackend.start(vertx, req -> req.body().onSuccess(body ->
        req.response().end("fast " + body.length())));
    TestConfig config = TestConfig.service("slow", backend("s", slow.port(), 1));
    config.lastService().getJsonObject("match").put("pathPrefix", "/slow");
    config.slots(1, 5000);
    config.addService("fast", "/", backend("f", fast.port(), 10));
    Fairway fairway = TestFairway.start(vertx, config.build());
    int port = fairway.proxyPort();
    Buffer body = Buffer.buffer(new byte[256 * 1024]);

    Future<String> hold = post(port, "/slow/hold", Buffer.buffer());
    while (slow.inFlight() == 0) {
      Thread.sleep(5);
    }
    Future<String> waiting = post(port, "/slow/up", body);
    Thread.sleep(100);
    String get = send(port, io.vertx.core.http.HttpMethod.GET, "/get", null).body();
    String upload = post(port, "/up", body).await(5, TimeUnit.SECONDS);
    boolean holdDone = hold.isComplete();

    assertThat(get + ", " + upload).isEqualTo("fast 0, fast " + body.length());
    assertThat(holdDone).as("the other streams were answered while the first upload waited for its slot").isFalse();
    assertThat(waiting.await(5, TimeUnit.SECONDS)).isEqualTo("slow " + body.length());
    assertThat(connections.get()).isEqualTo(1);
    TestFairway.assertIdleSoon(fairway);
  }

  private Future<String> post(int port, String path, Buffer body) {
    return TestClient.onLoop(vertx, () -> h2.request(io.vertx.core.http.HttpMethod.POST, port, "127.0.0.1", path)
        .compose(req -> req.send(body)).compose(resp -> resp.body().map(Buffer::toString)));
  }

  @Test
  void anUploadWithoutLengthGoesToTheBackendChunkedAndWhole() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> req.body().onSuccess(body -> req.response()
        .putHeader("x-seen", req.getHeader("transfer-encoding") + " " + body.length())
        .end(Integer.toHexString(java.util.Arrays.hashCode(body.getBytes())))));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10)).build());
    byte[] data = new byte[1 << 20];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i * 31 + (i >> 9));
    }

    Answer a = TestClient.onLoop(vertx, () -> h2.request(io.vertx.core.http.HttpMethod.POST, fairway.proxyPort(),
            "127.0.0.1", "/up")
        .compose(req -> {
          req.setChunked(true);
          for (int off = 0; off < data.length; off += 16 * 1024) {
            req.write(Buffer.buffer(java.util.Arrays.copyOfRange(data, off, off + 16 * 1024)));
          }
          return req.end().compose(v -> req.response());
        })
        .compose(resp -> resp.body().map(body -> new Answer(resp.version(), resp.statusCode(), resp.getHeader("via"),
            resp.getHeader("x-seen"), body.toString()))))
        .await(10, TimeUnit.SECONDS);

    assertThat(a.status()).isEqualTo(200);
    assertThat(a.header()).isEqualTo("chunked " + data.length);
    assertThat(a.body()).isEqualTo(Integer.toHexString(java.util.Arrays.hashCode(data)));
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void expectContinueIsAnsweredByFairwayWithAnInterimHeadersFrameAndNotForwarded() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> req.body().onSuccess(body -> req.response()
        .putHeader("x-seen", "expect=" + req.getHeader("expect") + " length=" + req.getHeader("content-length"))
        .end("echo:" + body)));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10)).build());
    AtomicInteger continues = new AtomicInteger();

    Answer a = TestClient.onLoop(vertx, () -> h2.request(io.vertx.core.http.HttpMethod.POST, fairway.proxyPort(),
            "127.0.0.1", "/upload")
        .compose(req -> {
          req.putHeader("expect", "100-continue").putHeader("content-length", "11");
          req.continueHandler(v -> {
            continues.incrementAndGet();
            req.end("hello world");
          });
          return req.sendHead().compose(v -> req.response());
        })
        .compose(resp -> resp.body().map(body -> new Answer(resp.version(), resp.statusCode(), resp.getHeader("via"),
            resp.getHeader("x-seen"), body.toString()))))
        .await(10, TimeUnit.SECONDS);

    assertThat(continues.get()).as("the body was sent only after the interim 100").isEqualTo(1);
    assertThat(a).isEqualTo(new Answer(io.vertx.core.http.HttpVersion.HTTP_2, 200, "1.1 fairway",
        "expect=null length=11", "echo:hello world"));
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void trailerFieldsEndTheBodyAndGoToTheBackendInTheLastChunkButNotThoseThatMustNeverBeTrailers() throws Exception {
    List<String> wire = java.util.Collections.synchronizedList(new ArrayList<>());
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", recordingBackend(wire), 10)).build());

    String answer = RawH2.requestWithBody(fairway.proxyPort(), "twelve bytes",
        new String[] {"x-checksum", "abc", "authorization", "Basic YTpi"},
        ":method", "POST", ":path", "/t", ":scheme", "http", ":authority", "a");

    assertThat(answer).isEqualTo("status 200: ok");
    assertThat(wire).singleElement().satisfies(sent -> assertThat(sent).startsWith("POST /t HTTP/1.1\r\n")
        .endsWith("\r\n\r\nc\r\ntwelve bytes\r\n0\r\nx-checksum: abc\r\n\r\n")
        .containsIgnoringCase("transfer-encoding: chunked").doesNotContainIgnoringCase("authorization"));
    TestFairway.assertIdleSoon(fairway);
  }

  /**
   * The HTTP/2-to-HTTP/1.1 downgrade attacks ("H2.CL", "H2.TE"): a body longer or shorter than
   * its {@code content-length}, or a {@code transfer-encoding} field, must never let bytes of the
   * body reach the backend as the start of another request on a pooled connection.
   */
  @Test
  void bodiesThatContradictTheirFramingNeverReachTheBackendAndHostComesFromTheAuthority() throws Exception {
    List<String> wire = java.util.Collections.synchronizedList(new ArrayList<>());
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", recordingBackend(wire), 10)).build());
    String smuggled = "GET /smuggled HTTP/1.1\r\nhost: a\r\n\r\n";
    String[] noTrailers = new String[0];

    String clOver = RawH2.requestWithBody(fairway.proxyPort(), "hello" + smuggled, noTrailers,
        ":method", "POST", ":path", "/cl-over", ":scheme", "http", ":authority", "a", "content-length", "5");
    String clUnder = RawH2.requestWithBody(fairway.proxyPort(), "hello", noTrailers,
        ":method", "POST", ":path", "/cl-under", ":scheme", "http", ":authority", "a", "content-length", "50");
    String te = RawH2.requestWithBody(fairway.proxyPort(), "0\r\n\r\n" + smuggled, noTrailers,
        ":method", "POST", ":path", "/te", ":scheme", "http", ":authority", "a", "transfer-encoding", "chunked");
    String twoHostsBody = RawH2.requestWithBody(fairway.proxyPort(), "hello", noTrailers,
        ":method", "POST", ":path", "/two-hosts-body", ":scheme", "http", ":authority", "a", "host", "b");
    String twoHosts = RawH2.request(fairway.proxyPort(),
        ":method", "GET", ":path", "/two-hosts", ":scheme", "http", ":authority", "a", "host", "b");
    TestFairway.assertIdleSoon(fairway);
    Thread.sleep(300); // the recording backend writes down what it got 150 ms after the last byte

    assertThat(List.of(clOver, clUnder, te)).allMatch(a -> a.equals("reset") || a.equals("goaway"));
    assertThat(twoHostsBody + ", " + twoHosts).isEqualTo("status 200: ok, status 200");
    assertThat(String.join("", wire)).doesNotContain("/smuggled").doesNotContain("hello" + "GET")
        .doesNotContain("POST /te ");
    assertThat(wire).filteredOn(w -> w.contains("POST /cl-")).hasSize(2)
        .allMatch(w -> w.startsWith("closed before an answer: ") && w.endsWith("\r\n\r\n"), "the head alone");
    assertThat(wire).filteredOn(w -> w.contains("/two-hosts")).hasSize(2)
        .allMatch(w -> hostLines(w).equals(List.of("a")), "one Host, from :authority");
  }

  private static List<String> hostLines(String head) {
    return head.lines().filter(l -> l.regionMatches(true, 0, "host:", 0, 5)).map(l -> l.substring(5).trim()).toList();
  }

  /**
   * A backend that writes down each connection's bytes 150 ms after the last of them came (or
   * "closed before an answer: " and the bytes, if Fairway closed it first), then answers
   * {@code ok} and closes; health checks are answered and not written down.
   */
  private int recordingBackend(List<String> wire) throws Exception {
    io.vertx.core.net.NetServer backend = vertx.createNetServer().connectHandler(socket -> {
      StringBuilder got = new StringBuilder();
      long[] timer = {-1};
      socket.handler(data -> {
        got.append(data.toString(StandardCharsets.ISO_8859_1));
        vertx.cancelTimer(timer[0]);
        timer[0] = vertx.setTimer(150, t -> {
          if (got.indexOf("GET /health") != 0) {
            wire.add(got.toString());
          }
          socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
              .onComplete(v -> socket.close());
        });
      });
      socket.closeHandler(v -> {
        if (vertx.cancelTimer(timer[0]) && got.indexOf("GET /health") != 0) {
          wire.add("closed before an answer: " + got);
        }
      });
    });
    return backend.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS).actualPort();
  }

  @Test
  void aLargeResponseComesThroughWholeUnderFlowControl() throws Exception {
    byte[] data = new byte[4 << 20];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i ^ (i >> 11));
    }
    TestBackend b = TestBackend.start(vertx, req -> req.response().end(Buffer.buffer(data)));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10)).build());

    byte[] got = TestClient.onLoop(vertx, () -> h2.request(io.vertx.core.http.HttpMethod.GET, fairway.proxyPort(),
            "127.0.0.1", "/big")
        .compose(req -> req.send())
        .compose(HttpClientResponse::body)
        .map(Buffer::getBytes))
        .await(10, TimeUnit.SECONDS);

    assertThat(got).isEqualTo(data);
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void aChunkedResponseAndAHeadRequestKeepTheirFraming() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> {
      req.response().setChunked(true).putHeader("x-seen", req.method().name());
      if (req.method() == io.vertx.core.http.HttpMethod.HEAD) {
        req.response().putHeader("content-length", "5").setChunked(false).end();
        return;
      }
      req.response().write("part1-");
      vertx.setTimer(20, t -> req.response().end("part2"));
    });
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10)).build());

    Answer chunked = send(fairway.proxyPort(), io.vertx.core.http.HttpMethod.GET, "/c", null);
    Answer head = send(fairway.proxyPort(), io.vertx.core.http.HttpMethod.HEAD, "/h", null);

    assertThat(chunked).isEqualTo(new Answer(io.vertx.core.http.HttpVersion.HTTP_2, 200, "1.1 fairway", "GET",
        "part1-part2"));
    assertThat(head).isEqualTo(new Answer(io.vertx.core.http.HttpVersion.HTTP_2, 200, "1.1 fairway", "HEAD", ""));
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void fairwaysOwnStatusesAnswerTheStreamAndTheConnectionCarriesOn() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> req.response().end("ok, via " + req.getHeader("via")));
    TestConfig config = TestConfig.service("api", backend("b", b.port(), 10));
    config.lastService().getJsonObject("match").put("pathPrefix", "/api");
    Fairway fairway = TestFairway.start(vertx, config.build());

    Answer noRoute = send(fairway.proxyPort(), io.vertx.core.http.HttpMethod.GET, "/elsewhere", null);
    Answer ok = send(fairway.proxyPort(), io.vertx.core.http.HttpMethod.GET, "/api/x", null);
    b.close();
    Answer down = send(fairway.proxyPort(), io.vertx.core.http.HttpMethod.GET, "/api/y", null);

    assertThat(List.of(noRoute.status() + " " + noRoute.body(), ok.status() + " " + ok.body(),
        down.status() + " " + down.body()))
        .containsExactly("404 " + Failure.NO_ROUTE.reason() + "\n", "200 ok, via 2 fairway",
            "503 " + Failure.CONNECT_FAILED.reason() + "\n");
    assertThat(connections.get()).isEqualTo(1);
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void anEarlyAnswerToAnUploadIsWholeBeforeTheStreamIsResetEvenUnderFlowControl() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> req.response().end("ok"));
    TestConfig config = TestConfig.service("api", backend("b", b.port(), 10));
    config.lastService().getJsonObject("match").put("pathPrefix", "/api");
    Fairway fairway = TestFairway.start(vertx, config.build());

    String frames = RawH2.requestWithShutWindow(fairway.proxyPort(), 300, ":method", "POST", ":path", "/elsewhere",
        ":scheme", "http", ":authority", "a", "content-length", "100000");

    int body = Failure.NO_ROUTE.reason().length() + 1;
    assertThat(frames).as("the 404's body waits for the client's window; the reset (NO_ERROR) comes after it")
        .isEqualTo("HEADERS 404, DATA " + body + " END_STREAM, RST_STREAM 0");
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void aBackendThatDiesMidBodyResetsTheStreamNotAHalfBody() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> {
      if (!req.path().equals("/cut")) {
        req.response().end("ok");
        return;
      }
      req.response().putHeader("content-length", "100000").write(Buffer.buffer(new byte[1000]));
      vertx.setTimer(50, t -> req.connection().close());
    });
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10)).build());

    Future<Buffer> body = TestClient.onLoop(vertx, () -> h2.request(io.vertx.core.http.HttpMethod.GET,
            fairway.proxyPort(), "127.0.0.1", "/cut")
        .compose(req -> req.send())
        .compose(HttpClientResponse::body));

    assertThatThrownBy(() -> body.await(10, TimeUnit.SECONDS)).isInstanceOf(StreamResetException.class);
    Answer next = send(fairway.proxyPort(), io.vertx.core.http.HttpMethod.GET, "/again", null);
    assertThat(next.status()).as("a reset stream leaves the connection usable").isEqualTo(200);
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void aStreamTheClientResetsReleasesItsSlotAndTheConnectionCarriesOn() throws Exception {
    AtomicInteger backendClosed = new AtomicInteger();
    TestBackend b = TestBackend.start(vertx, req -> {
      if (!req.path().equals("/endless")) {
        req.response().end("ok");
        return;
      }
      req.response().setChunked(true).write("first part");
      req.connection().closeHandler(v -> backendClosed.incrementAndGet());
    });
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 1)).build());
    int port = fairway.proxyPort();

    TestClient.onLoop(vertx, () -> h2.request(io.vertx.core.http.HttpMethod.GET, port, "127.0.0.1", "/endless")
        .compose(req -> req.send().compose(resp -> {
          Promise<Void> firstPart = Promise.promise();
          resp.handler(chunk -> firstPart.tryComplete());
          return firstPart.future().compose(v -> req.reset());
        }))).await(5, TimeUnit.SECONDS);
    TestFairway.assertIdleSoon(fairway);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (backendClosed.get() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }

    assertThat(backendClosed.get()).as("the backend's connection of the reset stream is closed").isEqualTo(1);
    Answer next = send(port, io.vertx.core.http.HttpMethod.GET, "/next", null);
    assertThat(next.body()).isEqualTo("ok");
    assertThat(connections.get()).isEqualTo(1);
  }

  @Test
  void aStreamWhoseClientStoppedReadingIsResetAfterTheIdleTimeoutWhileItsBusyConnectionStaysOpen() throws Exception {
    byte[] big = new byte[4 << 20];
    TestBackend b = TestBackend.start(vertx, req -> req.response()
        .end(req.path().equals("/big") ? Buffer.buffer(big) : Buffer.buffer("ok")));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10))
        .proxy("idleTimeoutMs", 400).build());
    int port = fairway.proxyPort();
    HttpClientAgent client = vertx.httpClientBuilder()
        .with(new HttpClientOptions().setProtocolVersion(io.vertx.core.http.HttpVersion.HTTP_2)
            .setHttp2ClearTextUpgrade(false).setHttp2ConnectionWindowSize(16 << 20))
        .with(new PoolOptions().setHttp2MaxSize(1))
        .withConnectHandler(c -> {
          connections.incrementAndGet();
          c.closeHandler(v -> closed.incrementAndGet());
        })
        .build();

    Promise<String> stuck = Promise.promise();
    TestClient.onLoop(vertx, () -> client.request(io.vertx.core.http.HttpMethod.GET, port, "127.0.0.1", "/big")
        .compose(req -> req.send())
        .onSuccess(resp -> {
          resp.pause(); // reads nothing more: the stream's window is never given back
          resp.exceptionHandler(e -> stuck.tryComplete(e.getClass().getSimpleName()));
          resp.endHandler(v -> stuck.tryComplete("ended"));
        })).await(5, TimeUnit.SECONDS);
    List<String> others = new ArrayList<>();
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1200);
    while (System.nanoTime() < until) { // the connection is never quiet for 100 ms
      others.add(TestClient.onLoop(vertx, () -> client.request(io.vertx.core.http.HttpMethod.GET, port, "127.0.0.1",
              "/small")
          .compose(req -> req.send()).compose(resp -> resp.body().map(Buffer::toString)))
          .await(5, TimeUnit.SECONDS));
      Thread.sleep(50);
    }

    assertThat(stuck.future().await(5, TimeUnit.SECONDS)).isEqualTo("StreamResetException");
    assertThat(others).isNotEmpty().containsOnly("ok");
    assertThat(connections.get() + " connection, " + closed.get() + " closed").isEqualTo("1 connection, 0 closed");
    TestFairway.assertIdleSoon(fairway);
    client.close();
  }

  @Test
  void aRapidResetFloodEndsTheConnectionAndLeavesNoSlotTaken() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> vertx.setTimer(50, t -> req.response().end("ok")));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 1000)).build());

    String fewResets = RawH2.rapidReset(fairway.proxyPort(), 50);
    String flood = RawH2.rapidReset(fairway.proxyPort(), 1000);

    assertThat(fewResets + ", " + flood).isEqualTo("open, goaway");
    assertThat(b.requests()).isLessThan(1000);
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void drainingLetsTheStreamUnderWayFinishAndThenClosesTheConnection() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> vertx.setTimer(300, t -> req.response().end("late")));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10))
        .proxy("drainGraceMs", 0).build());

    Future<String> slow = TestClient.onLoop(vertx, () -> h2.request(io.vertx.core.http.HttpMethod.GET,
            fairway.proxyPort(), "127.0.0.1", "/slow")
        .compose(req -> req.send())
        .compose(resp -> resp.body().map(body -> resp.statusCode() + " " + body)));
    while (b.inFlight() == 0) {
      Thread.sleep(5);
    }
    Future<Void> drained = fairway.drain();

    assertThat(slow.await(5, TimeUnit.SECONDS)).isEqualTo("200 late");
    drained.await(5, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    while (closed.get() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(closed.get()).as("connection closed after the drain").isEqualTo(1);
  }

  @Test
  void withHttp2OffThePrefaceIsAnsweredAsABadHttp11Request() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> req.response().end("ok"));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10))
        .proxy("h2MaxConcurrentStreams", 0).build());

    RawHttp.Response r = RawHttp.exchange(fairway.proxyPort(), "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

    assertThat(r.status()).isBetween(400, 505);
    assertThatThrownBy(() -> send(fairway.proxyPort(), io.vertx.core.http.HttpMethod.GET, "/", null))
        .isInstanceOf(Exception.class);
  }
}
