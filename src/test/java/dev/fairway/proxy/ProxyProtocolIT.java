package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.TlsClient;
import dev.fairway.testing.TlsFiles;
import dev.fairway.testing.VertxTestBase;
import io.micrometer.core.instrument.Counter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageEncoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import io.netty.handler.codec.haproxy.HAProxyTLV;
import io.vertx.core.json.JsonObject;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * {@code proxy.acceptProxyProtocol} with a real Fairway, a real backend that echoes the forwarding
 * fields it got, and raw sockets that send PROXY headers (v1 text, v2 binary built with Netty's
 * encoder) as an L4 balancer would: the header's source becomes the client everywhere, and a
 * connection without a valid header is closed unanswered and counted.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ProxyProtocolIT extends VertxTestBase {
  private static final String V1 = "PROXY TCP4 203.0.113.7 10.0.0.1 51000 80\r\n";
  private final ListAppender<ILoggingEvent> accessLines = new ListAppender<>();
  private final Logger access = (Logger) LoggerFactory.getLogger("fairway.access");
  private TestBackend backend;

  @BeforeEach
  void startBackend() {
    accessLines.start();
    access.addAppender(accessLines);
    backend = TestBackend.start(vertx, req -> req.response()
        .end("xff=" + req.getHeader("X-Forwarded-For") + " fwd=" + req.getHeader("Forwarded")));
  }

  @AfterEach
  void detach() {
    access.detachAppender(accessLines);
  }

  private TestConfig config(boolean accept) {
    TestConfig c = TestConfig.service("web", backend("b1", backend.port(), 10)).proxy("acceptProxyProtocol", accept);
    c.json().put("accessLog", new JsonObject().put("enabled", true).put("format", "json"));
    return c;
  }

  private Fairway start(TestConfig c) {
    return TestFairway.start(vertx, c.build());
  }

  @Test
  void v1SourceIsTheClientInForwardingFieldsAndTheAccessLog() throws Exception {
    Fairway f = start(config(true));

    try (Socket s = open(f.proxyPort(), ascii(V1))) {
      assertThat(get(s, "/a")).isEqualTo("xff=203.0.113.7 fwd=for=203.0.113.7;proto=http;host=shop.example");
    }

    assertThat(awaitAccessLine().getString("client")).isEqualTo("203.0.113.7");
    assertThat(rejected(f, "invalid") + rejected(f, "timeout")).isZero();
    TestFairway.assertIdleSoon(f);
  }

  @Test
  void keepAliveRequestsOnOneConnectionKeepItsSource() throws Exception {
    Fairway f = start(config(true));

    try (Socket s = open(f.proxyPort(), ascii(V1 + "GET /first HTTP/1.1\r\nHost: shop.example\r\n\r\n"))) {
      assertThat(RawHttp.readResponse(s.getInputStream()).body()).startsWith("xff=203.0.113.7 ");
      assertThat(get(s, "/second")).startsWith("xff=203.0.113.7 ");
      assertThat(get(s, "/third")).startsWith("xff=203.0.113.7 ");
    }
    assertThat(backend.requests()).isEqualTo(3);
  }

  @Test
  void v1OverIpv6GivesTheShortBracketedForm() throws Exception {
    Fairway f = start(config(true));

    try (Socket s = open(f.proxyPort(), ascii("PROXY TCP6 2001:db8:0:0::7 2001:db8::1 51000 443\r\n"))) {
      assertThat(get(s, "/")).isEqualTo("xff=2001:db8::7 fwd=for=\"[2001:db8::7]\";proto=http;host=shop.example");
    }
  }

  @Test
  void v2BinaryWithATlvGivesItsSource() throws Exception {
    Fairway f = start(config(true));
    HAProxyTLV authority = new HAProxyTLV(HAProxyTLV.Type.PP2_TYPE_AUTHORITY,
        Unpooled.copiedBuffer("shop.example", StandardCharsets.US_ASCII));
    byte[] header = v2(new HAProxyMessage(HAProxyProtocolVersion.V2, HAProxyCommand.PROXY,
        HAProxyProxiedProtocol.TCP4, "198.51.100.23", "10.0.0.1", 40000, 80, List.of(authority)));

    try (Socket s = open(f.proxyPort(), header)) {
      assertThat(get(s, "/")).startsWith("xff=198.51.100.23 fwd=for=198.51.100.23;");
    }
  }

  @Test
  void v2LocalAndV1UnknownKeepTheRealPeer() throws Exception {
    Fairway f = start(config(true));
    byte[] local = v2(new HAProxyMessage(HAProxyProtocolVersion.V2, HAProxyCommand.LOCAL,
        HAProxyProxiedProtocol.UNKNOWN, null, null, 0, 0));

    try (Socket s = open(f.proxyPort(), local)) {
      assertThat(get(s, "/")).startsWith("xff=127.0.0.1 ");
    }
    try (Socket s = open(f.proxyPort(), ascii("PROXY UNKNOWN\r\n"))) {
      assertThat(get(s, "/")).startsWith("xff=127.0.0.1 ");
    }
    assertThat(rejected(f, "invalid")).isZero();
  }

  @Test
  void trustedHopsKeepTheEarlierHopsBeforeTheProxiedClient() throws Exception {
    Fairway f = start(config(true).proxy("trustedHops", 1));

    try (Socket s = open(f.proxyPort(), ascii(V1
        + "GET / HTTP/1.1\r\nHost: shop.example\r\nX-Forwarded-For: 6.6.6.6, 10.9.9.9\r\n\r\n"))) {
      assertThat(RawHttp.readResponse(s.getInputStream()).body()).startsWith("xff=10.9.9.9, 203.0.113.7 ");
    }
  }

  @Test
  void aRequestWithoutTheHeaderIsClosedUnansweredAndCounted() throws Exception {
    Fairway f = start(config(true));

    try (Socket s = open(f.proxyPort(), ascii("GET / HTTP/1.1\r\nHost: shop.example\r\n\r\n"))) {
      assertClosedUnanswered(s);
    }

    waitFor(() -> rejected(f, "invalid") == 1); // the count may follow the close by a moment
    assertThat(rejected(f, "timeout")).isZero();
    assertThat(backend.requests()).isZero();
  }

  @Test
  void garbageIsClosedUnansweredAndCounted() throws Exception {
    Fairway f = start(config(true));
    byte[] clientHello = new byte[300]; // a TLS record (no header before it) has no line end in reach
    clientHello[0] = 0x16;
    clientHello[1] = 0x03;
    clientHello[2] = 0x01;

    try (Socket s = open(f.proxyPort(), ascii("PROXY TCP4 not-an-address 10.0.0.1 1 2\r\n"))) {
      assertClosedUnanswered(s);
    }
    try (Socket s = open(f.proxyPort(), clientHello)) {
      assertClosedUnanswered(s);
    }

    waitFor(() -> rejected(f, "invalid") == 2);
    assertThat(backend.requests()).isZero();
  }

  @Test
  void silenceOrAPartialHeaderPastTheHeadTimeoutIsClosedAndCountedButAnEmptyConnectionIsNot() throws Exception {
    Fairway f = start(config(true).proxy("requestHeadersTimeoutMs", 1000));

    try (Socket probe = open(f.proxyPort(), new byte[0])) {
      probe.close(); // an L4 balancer's TCP check: connect, close
    }
    long start = System.nanoTime();
    try (Socket silent = open(f.proxyPort(), new byte[0]);
         Socket partial = open(f.proxyPort(), ascii("PROXY TCP4 203.0."))) {
      assertClosedUnanswered(silent);
      assertClosedUnanswered(partial);
    }

    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(900L, 4500L);
    waitFor(() -> rejected(f, "timeout") >= 2);
    Thread.sleep(500); // the probe's timer would have fired by now, had it not been cancelled
    assertThat(rejected(f, "timeout")).isEqualTo(2);
    assertThat(rejected(f, "invalid")).isZero();
  }

  @Test
  void withoutTheSettingAProxyLineIsABadRequest() throws Exception {
    Fairway f = start(config(false));

    RawHttp.Response r = RawHttp.exchange(f.proxyPort(), V1 + "GET / HTTP/1.1\r\nHost: shop.example\r\n\r\n");

    assertThat(r.status()).isEqualTo(400);
    assertThat(backend.requests()).isZero();
    assertThat(f.metrics().registry().find("fairway_proxy_protocol_rejected").counter()).isNull();
  }

  @Test
  void onTheTlsListenerTheHeaderComesBeforeTheHandshake() throws Exception {
    Fairway f = start(config(true).proxy("tls", TlsFiles.tls("a")));

    Socket plain = open(f.tlsPort(), ascii("PROXY TCP4 198.51.100.9 10.0.0.1 40000 443\r\n"));
    try (SSLSocket s = (SSLSocket) TlsClient.context(false).getSocketFactory()
        .createSocket(plain, "127.0.0.1", f.tlsPort(), true)) {
      s.startHandshake();
      assertThat(TlsClient.get(s, "/")).startsWith("HTTP/1.1 200")
          .endsWith("xff=198.51.100.9 fwd=for=198.51.100.9;proto=https;host=a.test");
    }
    try (Socket noHeader = TlsClient.connect(TlsClient.context(false), f.tlsPort(), null)) {
      throw new AssertionError("handshake without a PROXY header succeeded: " + noHeader);
    } catch (IOException expected) {
      waitFor(() -> rejected(f, "invalid") == 1);
    }
  }

  @Test
  void curlWithHaproxyProtocolIsServedOverHttp11AndH2cAndWithoutItGetsNothing() throws Exception {
    assumeTrue(onPath("curl"), "curl is not installed");
    Fairway f = start(config(true));
    String url = "http://127.0.0.1:" + f.proxyPort() + "/c";

    assertThat(curl("--haproxy-protocol", "-H", "Host: shop.example", url))
        .isEqualTo("0 xff=127.0.0.1 fwd=for=127.0.0.1;proto=http;host=shop.example");
    assertThat(curl("--haproxy-protocol", "--http2-prior-knowledge", "-H", "Host: shop.example", url))
        .as("h2c after the header").isEqualTo("0 xff=127.0.0.1 fwd=for=127.0.0.1;proto=http;host=shop.example");
    assertThat(curl(url)).isEqualTo("52 "); // curl: "Empty reply from server"
    waitFor(() -> rejected(f, "invalid") == 1);
  }

  /** Connects to 127.0.0.1:port and writes {@code first}. */
  private static Socket open(int port, byte[] first) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    s.setSoTimeout(5000);
    s.getOutputStream().write(first);
    s.getOutputStream().flush();
    return s;
  }

  /** {@code GET path} on the open connection (kept alive); the response body. */
  private static String get(Socket s, String path) throws IOException {
    s.getOutputStream().write(ascii("GET " + path + " HTTP/1.1\r\nHost: shop.example\r\n\r\n"));
    s.getOutputStream().flush();
    RawHttp.Response r = RawHttp.readResponse(s.getInputStream());
    assertThat(r.status()).isEqualTo(200);
    return r.body();
  }

  /** The server closes (FIN or reset) without having sent a byte. */
  private static void assertClosedUnanswered(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    int first;
    try {
      first = in.read();
    } catch (SocketTimeoutException e) {
      throw new AssertionError("still open after 5 s", e);
    } catch (IOException reset) {
      first = -1;
    }
    assertThat(first).as("no answer, just the close").isEqualTo(-1);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** The header's bytes, as Netty's encoder writes them. */
  private static byte[] v2(HAProxyMessage header) {
    EmbeddedChannel ch = new EmbeddedChannel(HAProxyMessageEncoder.INSTANCE);
    ch.writeOutbound(header);
    ByteBuf out = ch.readOutbound();
    try {
      return ByteBufUtil.getBytes(out);
    } finally {
      out.release();
      ch.finishAndReleaseAll();
    }
  }

  private static double rejected(Fairway f, String reason) {
    Counter c = f.metrics().registry().find("fairway_proxy_protocol_rejected").tag("reason", reason).counter();
    return c == null ? -1 : c.count();
  }

  private JsonObject awaitAccessLine() throws InterruptedException {
    waitFor(() -> !accessLines.list.isEmpty());
    return new JsonObject(accessLines.list.get(0).getFormattedMessage());
  }

  private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(condition.getAsBoolean()).as("condition within 5 s").isTrue();
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (new File(dir, tool).canExecute()) {
        return true;
      }
    }
    return false;
  }

  /** Runs curl; its exit code, a space and the body. */
  private static String curl(String... args) throws IOException, InterruptedException {
    List<String> cmd = new java.util.ArrayList<>(List.of("curl", "-s", "--max-time", "10"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(15, TimeUnit.SECONDS)).isTrue();
    return p.exitValue() + " " + out;
  }
}
