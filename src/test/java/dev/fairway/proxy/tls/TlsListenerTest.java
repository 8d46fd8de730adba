package dev.fairway.proxy.tls;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.TlsClient;
import dev.fairway.testing.TlsFiles;
import dev.fairway.testing.VertxTestBase;
import io.micrometer.core.instrument.Counter;
import io.netty.handler.ssl.SslProvider;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The TLS listener with real JDK TLS clients, a real Fairway and a real backend that tells which
 * protocol and {@code X-Forwarded-Proto} it saw: SNI and its wildcard and default, ALPN h2 and
 * http/1.1, mTLS, plain HTTP and garbage on the TLS port, an expired certificate.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TlsListenerTest extends VertxTestBase {
  private TestBackend backend;

  @BeforeEach
  void startBackend() {
    backend = TestBackend.start(vertx, req -> req.response().putHeader("x-proto", req.getHeader("x-forwarded-proto"))
        .end("hello over " + req.version()));
  }

  private Fairway start(JsonObject tls) {
    TestConfig c = TestConfig.service("api", backend("b1", backend.port(), 10)).proxy("tls", tls);
    return TestFairway.start(vertx, c.build());
  }

  @Test
  void jdkHttpClientOverHttp11AndH2GetsTheBackendsAnswer() throws Exception {
    Fairway f = start(TlsFiles.tls("a", "wild"));
    HttpClient.Builder b = HttpClient.newBuilder().sslContext(TlsClient.context(false))
        .connectTimeout(Duration.ofSeconds(5));
    URI uri = URI.create("https://localhost:" + f.tlsPort() + "/x");

    HttpResponse<String> h2 = b.version(HttpClient.Version.HTTP_2).build()
        .send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> h1 = b.version(HttpClient.Version.HTTP_1_1).build()
        .send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());

    assertThat(h1.statusCode()).isEqualTo(200);
    assertThat(h1.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    assertThat(h1.body()).isEqualTo("hello over HTTP_1_1");
    assertThat(h1.headers().firstValue("x-proto")).contains("https");
    assertThat(h2.statusCode()).isEqualTo(200);
    assertThat(h2.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(h2.headers().firstValue("x-proto")).contains("https");
    assertThat(f.proxyPort()).as("cleartext stays on").isPositive();
    assertThat(counter(f, "fairway_tls_handshakes")).isEqualTo(2);
  }

  @Test
  void curlGetsTheWildcardCertificateOverH2WhereInstalled() throws Exception {
    ExternalClients.assumeInstalled("curl");
    Fairway f = start(TlsFiles.tls("a", "wild"));
    int port = f.tlsPort();

    String h2 = ExternalClients.curl("--http2", "--cacert", TlsFiles.path("ca.pem"), "--resolve",
        "api.wild.test:" + port + ":127.0.0.1", "-w", "|%{http_version} %{response_code}",
        "https://api.wild.test:" + port + "/");
    String h1 = ExternalClients.curl("--http1.1", "--cacert", TlsFiles.path("ca.pem"), "--resolve",
        "a.test:" + port + ":127.0.0.1", "-w", "|%{http_version} %{response_code}", "https://a.test:" + port + "/");

    assertThat(h2).as("verified against *.wild.test").isEqualTo("hello over HTTP_1_1|2 200");
    assertThat(h1).isEqualTo("hello over HTTP_1_1|1.1 200");
  }

  @Test
  void sniChoosesTheCertificateWildcardsIncludedAndTheFirstIsTheDefault() throws Exception {
    Fairway f = start(TlsFiles.tls("a", "b", "wild"));
    int port = f.tlsPort();

    assertThat(sansFor(port, "b.test")).containsExactly("b.test");
    assertThat(sansFor(port, "api.wild.test")).containsExactly("*.wild.test");
    assertThat(sansFor(port, "A.TEST")).contains("a.test");
    assertThat(sansFor(port, null)).as("no SNI").contains("a.test");
    assertThat(sansFor(port, "nobody.example")).as("no match").contains("a.test");
    assertThat(sansFor(port, "deep.api.wild.test")).as("a wildcard covers one label").contains("a.test");
    try (SSLSocket s = TlsClient.connect(TlsClient.context(false), port, "b.test")) {
      assertThat(TlsClient.get(s, "/")).startsWith("HTTP/1.1 200").endsWith("hello over HTTP_1_1");
    }
  }

  private static java.util.List<String> sansFor(int port, String sni) throws Exception {
    try (SSLSocket s = TlsClient.connect(TlsClient.context(false), port, sni)) {
      return TlsClient.sans(s);
    }
  }

  @Test
  void alpnHttp11OnlyAndNoAlpnTakeTheHttp1Path() throws Exception {
    Fairway f = start(TlsFiles.tls("a").put("alpn", new JsonArray().add("http/1.1")));

    HttpResponse<String> r = HttpClient.newBuilder().sslContext(TlsClient.context(false))
        .version(HttpClient.Version.HTTP_2).build()
        .send(HttpRequest.newBuilder(URI.create("https://localhost:" + f.tlsPort() + "/")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.version()).as("h2 not offered").isEqualTo(HttpClient.Version.HTTP_1_1);
    try (SSLSocket s = TlsClient.connect(TlsClient.context(false), f.tlsPort(), null)) {
      assertThat(s.getApplicationProtocol()).isEmpty();
      assertThat(TlsClient.get(s, "/")).contains("x-proto: https").endsWith("hello over HTTP_1_1");
    }
  }

  @Test
  void onlyTls12AndTls13WithAeadCiphersAreSpoken() throws Exception {
    Fairway f = start(TlsFiles.tls("a"));

    try (SSLSocket s = TlsClient.connect(TlsClient.context(false), f.tlsPort(), null, "TLSv1.2")) {
      assertThat(s.getSession().getProtocol()).isEqualTo("TLSv1.2");
    }
    try (SSLSocket s = TlsClient.connect(TlsClient.context(false), f.tlsPort(), null)) {
      assertThat(s.getSession().getProtocol()).isEqualTo("TLSv1.3");
    }
    assertThatThrownBy(() -> TlsClient.connect(TlsClient.context(false), f.tlsPort(), null, "TLSv1.1").close())
        .isInstanceOf(IOException.class);
    ExternalClients.assumeInstalled("openssl");
    String tls11 = ExternalClients.openssl(f.tlsPort(), "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0");
    assertThat(tls11).contains("alert protocol version").contains("Cipher is (NONE)");
    assertThat(ExternalClients.openssl(f.tlsPort(), "-tls1_2")).contains("Protocol  : TLSv1.2");
    assertThat(ExternalClients.openssl(f.tlsPort(), "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"))
        .contains("Cipher is ECDHE-ECDSA-AES128-GCM-SHA256");
    assertThat(ExternalClients.openssl(f.tlsPort(), "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA"))
        .as("CBC, not in HTTP/2's list").contains("Cipher is (NONE)");
  }

  @Test
  void sessionsResumeOverTls13AndTls12WhereOpensslIsInstalled(@TempDir Path dir) throws Exception {
    ExternalClients.assumeInstalled("openssl");
    Fairway f = start(TlsFiles.tls("a"));

    for (String version : new String[] {"-tls1_3", "-tls1_2"}) {
      String session = dir.resolve(version + ".session").toString();
      assertThat(ExternalClients.opensslGet(f.tlsPort(), version, "-sess_out", session)).contains("New, TLSv1.")
          .contains("hello over HTTP_1_1");
      assertThat(ExternalClients.opensslGet(f.tlsPort(), version, "-sess_in", session)).as(version)
          .contains("Reused, TLSv1.").contains("hello over HTTP_1_1");
    }
  }

  @Test
  void mutualTlsAcceptsASignedClientCertificateAndRefusesNone() throws Exception {
    Fairway f = start(TlsFiles.tls("a").put("clientCa", TlsFiles.path("client-ca.pem")));

    try (SSLSocket s = TlsClient.connect(TlsClient.context(true), f.tlsPort(), "a.test")) {
      assertThat(TlsClient.get(s, "/")).startsWith("HTTP/1.1 200").endsWith("hello over HTTP_1_1");
    }
    String without;
    try (SSLSocket s = TlsClient.connect(TlsClient.context(false), f.tlsPort(), "a.test")) {
      without = TlsClient.get(s, "/"); // TLS 1.3: the refusal arrives after the client's Finished
    } catch (IOException e) {
      without = "refused: " + e;
    }
    assertThat(without).doesNotContain("200").doesNotContain("hello");
    assertThat(backend.requests()).isEqualTo(1);
  }

  @Test
  void plainHttpOnTheTlsPortIsAnswered400InCleartextAndClosed() throws Exception {
    Fairway f = start(TlsFiles.tls("a"));

    try (Socket s = new Socket("127.0.0.1", f.tlsPort())) {
      s.setSoTimeout(5000);
      s.getOutputStream().write("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String answer = TlsClient.readAll(s.getInputStream()); // to the end: the proxy closed

      assertThat(answer).startsWith("HTTP/1.1 400 Bad Request\r\n")
          .endsWith("\r\n\r\nplain HTTP request sent to the TLS port\n");
    }
    assertThat(backend.requests()).isZero();
    assertThat(counter(f, "fairway_tls_plaintext_requests")).isEqualTo(1);
  }

  @Test
  void garbageAndTruncatedHandshakesAreClosedAndCountedAndNothingElseIsAffected() throws Exception {
    Fairway f = start(TlsFiles.tls("a"));
    try (SSLSocket open = TlsClient.connect(TlsClient.context(false), f.tlsPort(), null)) {
      assertThat(closedAfterSending(f.tlsPort(), new byte[] {0, 1, 2, 3, 4, 5, 6, 7, (byte) 0xff, 9, 10, 11}, true))
          .isTrue();
      assertThat(closedAfterSending(f.tlsPort(), new byte[] {0x16, 3, 1, 0, 5, 1, 2, 3, 4, 5}, true)).isTrue();
      closedAfterSending(f.tlsPort(), new byte[] {0x16, 3, 1, 2, 0, 1, 0, 1, (byte) 0xfc, 3, 3}, false);
      waitFor(() -> counter(f, "fairway_tls_handshake_failures") == 3);

      assertThat(TlsClient.get(open, "/")).as("a connection made before").endsWith("hello over HTTP_1_1");
    }
    try (SSLSocket s = TlsClient.connect(TlsClient.context(false), f.tlsPort(), null)) {
      assertThat(TlsClient.get(s, "/")).as("a connection made after").endsWith("hello over HTTP_1_1");
    }
    assertThat(counter(f, "fairway_tls_handshakes")).isEqualTo(2);
  }

  /** Sends {@code bytes}; if {@code waitForClose}, whether the proxy then closes (else the client closes). */
  private static boolean closedAfterSending(int port, byte[] bytes, boolean waitForClose) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(5000);
      s.getOutputStream().write(bytes);
      if (!waitForClose) {
        return false;
      }
      InputStream in = s.getInputStream();
      try {
        while (in.read() >= 0) {
          // an alert may come first
        }
        return true;
      } catch (java.net.SocketException reset) {
        return true;
      }
    }
  }

  @Test
  void anExpiredCertificateIsWarnedAboutAndServed() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(TlsContexts.class);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    Fairway f;
    try {
      f = start(TlsFiles.tls("a", "expired"));
    } finally {
      logger.detachAppender(logs);
    }

    assertThat(logs.list).anySatisfy(e -> {
      assertThat(e.getLevel().toString()).isEqualTo("WARN");
      assertThat(e.getFormattedMessage()).startsWith("proxy.tls.certificates[1].certPath: certificate CN=expired of ")
          .contains("2020-02-01T00:00:00Z").endsWith("serving it anyway");
    });
    assertThat(logs.list).anySatisfy(e -> assertThat(e.getFormattedMessage())
        .startsWith(TlsProvider.fromSystem().provider() == SslProvider.OPENSSL ? "TLS provider: OpenSSL" : "TLS provider: JDK"));
    try (SSLSocket s = TlsClient.connect(TlsClient.trustingAll(), f.tlsPort(), "expired.test")) {
      assertThat(TlsClient.sans(s)).containsExactly("expired.test");
      assertThat(TlsClient.get(s, "/")).startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void cleartextCanBeTurnedOff() throws Exception {
    TestConfig c = TestConfig.service("api", backend("b1", backend.port(), 10)).proxy("port", -1)
        .proxy("tls", TlsFiles.tls("a"));
    Fairway f = TestFairway.start(vertx, c.build());

    assertThat(f.proxyPort()).isEqualTo(-1);
    try (SSLSocket s = TlsClient.connect(TlsClient.context(false), f.tlsPort(), null)) {
      assertThat(TlsClient.get(s, "/")).startsWith("HTTP/1.1 200");
    }
  }

  private static double counter(Fairway f, String name) {
    Counter c = f.metrics().registry().find(name).counter();
    return c == null ? -1 : c.count();
  }

  private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(condition.getAsBoolean()).as("condition within 5 s").isTrue();
  }
}
