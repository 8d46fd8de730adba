package dev.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestClient.Reply;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TlsBackend;
import dev.fairway.testing.VertxTestBase;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * TLS from Fairway to {@code https://} backends, end to end with real TLS backends: a backend
 * verified by {@code caPath} answers over one kept-alive TLS connection; a wrong CA, a wrong name
 * or a refused client certificate is a 502 whose access-log line names the TLS failure, counted
 * as a failure of the backend; {@code verify: false}, {@code serverName} and a client certificate
 * make the same backends answer.
 */
class UpstreamTlsIT extends VertxTestBase {
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger access = (Logger) LoggerFactory.getLogger("fairway.access");

  @BeforeEach
  void listen() {
    lines.start();
    access.addAppender(lines);
  }

  @AfterEach
  void stopListening() {
    access.detachAppender(lines);
  }

  /** One service {@code api} over backend {@code b1} at {@code url}, with {@code tls} (if not null), access log on. */
  private Fairway start(String url, JsonObject tls) throws Exception {
    TestConfig cfg = TestConfig.service("api", new JsonObject().put("id", "b1").put("url", url).put("capacity", 4))
        .instances(1).healthCheck(3_600_000, 1000, 1, 3);
    if (tls != null) {
      cfg.lastService().put("tls", tls);
    }
    cfg.json().put("accessLog", new JsonObject().put("enabled", true).put("format", "json"));
    return Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);
  }

  private static JsonObject ca(String file) {
    return new JsonObject().put("caPath", TlsBackend.file(file));
  }

  private Reply get(Fairway fw, String path) throws Exception {
    return TestClient.get(vertx, client, fw.proxyPort(), path);
  }

  private JsonObject lastAccessLine() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (lines.list.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(lines.list).isNotEmpty();
    return new JsonObject(lines.list.get(lines.list.size() - 1).getFormattedMessage());
  }

  private static double failures(Fairway fw) {
    Counter c = fw.metrics().registry().find("fairway_backend_requests").tag("backend", "b1").tag("class", "error")
        .counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void aBackendVerifiedByCaPathAnswersAndKeepsOneTlsConnectionForSequentialRequests() throws Exception {
    TlsBackend b = TlsBackend.start(vertx, "backend", null);
    Fairway fw = start(b.url(), ca("ca.pem"));

    Reply first = get(fw, "/one");
    Reply second = get(fw, "/two");

    assertThat(first.status()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("tls /one");
    assertThat(second.body()).isEqualTo("tls /two");
    assertThat(b.connections()).as("the second request reuses the pooled TLS connection").isEqualTo(1);
    assertThat(lastAccessLine().containsKey("reason")).isFalse();
  }

  @Test
  void aBackendThatChoosesH2ByAlpnIsProxiedOverHttp2StreamsOfOneConnection() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    Set<HttpConnection> connections = ConcurrentHashMap.newKeySet();
    HttpServer h2 = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setUseAlpn(true)
            .setKeyCertOptions(new PemKeyCertOptions().setCertPath(TlsBackend.file("backend.pem"))
                .setKeyPath(TlsBackend.file("backend.key"))))
        .requestHandler(req -> {
          if (!"/health".equals(req.path())) {
            seen.add(req.version() + " " + req.scheme() + " " + req.method() + " " + req.path());
            connections.add(req.connection());
          }
          req.body().onSuccess(body -> req.response().end("alpn " + req.path() + " " + body));
        });
    int port = h2.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS).actualPort();
    Fairway fw = start("https://127.0.0.1:" + port, ca("ca.pem"));

    Reply first = get(fw, "/one");
    String second = TestClient.onLoop(vertx, () -> client.request(HttpMethod.POST, fw.proxyPort(), "127.0.0.1", "/two")
        .compose(req -> req.send("a body")).compose(resp -> resp.body())).await(10, TimeUnit.SECONDS).toString();

    assertThat(List.of(first.body(), second)).containsExactly("alpn /one ", "alpn /two a body");
    assertThat(seen).as("over TLS the streams say :scheme https, bodiless or not")
        .containsExactly("HTTP_2 https GET /one", "HTTP_2 https POST /two");
    assertThat(connections).as("both streams on one HTTP/2 connection").hasSize(1);
  }

  @Test
  void aBackendSignedByAnotherCaIsRefusedWith502ANamedReasonAndAFailureOfTheBackend() throws Exception {
    TlsBackend b = TlsBackend.start(vertx, "backend", null);
    Fairway fw = start(b.url(), ca("other-ca.pem"));

    Reply r = get(fw, "/");

    assertThat(r.status()).isEqualTo(502);
    assertThat(r.body()).isEqualTo("TLS handshake with the backend failed\n");
    JsonObject line = lastAccessLine();
    assertThat(line.getInteger("status")).isEqualTo(502);
    assertThat(line.getString("backend")).isEqualTo("b1");
    assertThat(line.getString("reason")).startsWith("TLS handshake with the backend failed: ")
        .containsIgnoringCase("certification path");
    assertThat(failures(fw)).isGreaterThanOrEqualTo(1);
    assertThat(b.connections()).isZero();
  }

  @Test
  void aTlsFailureIsRetriedOnAnotherBackendAndEjectsItsBackendAsAGatewayFailure() throws Exception {
    TlsBackend misnamed = TlsBackend.start(vertx, "api-internal", null);
    TlsBackend good = TlsBackend.start(vertx, "backend", null);
    TestConfig cfg = TestConfig.service("api", new JsonObject().put("id", "b1").put("url", misnamed.url()),
        new JsonObject().put("id", "b2").put("url", good.url())).healthCheck(3_600_000, 1000, 1, 3);
    cfg.lastService().put("tls", ca("ca.pem"))
        .put("outlierDetection", new JsonObject().put("consecutiveGatewayFailures", 1));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    for (int i = 0; i < 40 && !"ejected".equals(state(fw, "b1")); i++) {
      assertThat(get(fw, "/" + i).body()).as("retried on b2").isEqualTo("tls /" + i);
      Thread.sleep(20);
    }

    assertThat(state(fw, "b1")).isEqualTo("ejected");
    assertThat(misnamed.connections()).isZero();
  }

  @Test
  void theJvmTrustStoreDoesNotTrustATestCa() throws Exception {
    TlsBackend b = TlsBackend.start(vertx, "backend", null);
    Fairway fw = start(b.url(), null);

    assertThat(get(fw, "/").status()).isEqualTo(502);
  }

  @Test
  void verifyFalseAcceptsAnUntrustedAndMisnamedCertificate() throws Exception {
    TlsBackend b = TlsBackend.start(vertx, "api-internal", null);
    Fairway fw = start(b.url(), new JsonObject().put("verify", false));

    Reply r = get(fw, "/any");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("tls /any");
  }

  @Test
  void serverNameIsSentAsSniAndVerifiedInsteadOfTheUrlsHost() throws Exception {
    TlsBackend b = TlsBackend.start(vertx, "api-internal", null);
    Fairway named = start(b.url(), ca("ca.pem").put("serverName", "api.internal"));

    assertThat(get(named, "/named").body()).isEqualTo("tls /named");
    assertThat(b.serverNames()).containsExactly("api.internal");
  }

  @Test
  void aCertificateThatDoesNotNameTheUrlsHostIsRefused() throws Exception {
    TlsBackend b = TlsBackend.start(vertx, "api-internal", null);
    Fairway unnamed = start(b.url(), ca("ca.pem"));

    assertThat(get(unnamed, "/").status()).isEqualTo(502);
    assertThat(lastAccessLine().getString("reason")).startsWith("TLS handshake with the backend failed: ");
  }

  @Test
  void aBackendThatRequiresAClientCertificateGetsTheConfiguredOne() throws Exception {
    TlsBackend b = TlsBackend.start(vertx, "backend", "ca.pem");
    Fairway fw = start(b.url(), ca("ca.pem").put("certPath", TlsBackend.file("client.pem"))
        .put("keyPath", TlsBackend.file("client.key")));

    Reply r = get(fw, "/mtls");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("tls /mtls");
  }

  @Test
  void withoutAClientCertificateSuchABackendIsA502NamingTls() throws Exception {
    TlsBackend b = TlsBackend.start(vertx, "backend", "ca.pem");
    Fairway fw = start(b.url(), ca("ca.pem"));

    Reply r = get(fw, "/mtls");

    assertThat(r.status()).isEqualTo(502);
    assertThat(lastAccessLine().getString("reason")).startsWith("TLS handshake with the backend failed: ");
    assertThat(b.connections()).isZero();
  }

  @Test
  void healthChecksUseTheServicesTlsSettings() throws Exception {
    TlsBackend good = TlsBackend.start(vertx, "api-internal", "ca.pem");
    TlsBackend bad = TlsBackend.start(vertx, "backend", null);
    JsonObject mtls = ca("ca.pem").put("serverName", "api.internal")
        .put("certPath", TlsBackend.file("client.pem")).put("keyPath", TlsBackend.file("client.key"));
    TestConfig cfg = TestConfig.service("good", new JsonObject().put("id", "good").put("url", good.url()))
        .healthCheck(100, 5000, 1, 1);
    cfg.lastService().put("tls", mtls);
    cfg.addService("bad", "/bad", new JsonObject().put("id", "bad").put("url", bad.url()))
        .healthCheck(100, 5000, 1, 1);
    cfg.lastService().put("tls", ca("other-ca.pem"));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while ((good.healthChecks() < 3 || !"unhealthy".equals(state(fw, "bad"))) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }

    assertThat(good.healthChecks()).isGreaterThanOrEqualTo(3);
    assertThat(good.serverNames()).containsExactly("api.internal");
    assertThat(state(fw, "good")).isEqualTo("healthy");
    assertThat(state(fw, "bad")).isEqualTo("unhealthy");
    assertThat(bad.healthChecks()).isZero();
  }

  private String state(Fairway fw, String id) throws Exception {
    Reply r = TestClient.get(vertx, client, fw.adminPort(), "/api/services");
    for (Object s : new JsonArray(r.body())) {
      for (Object b : ((JsonObject) s).getJsonArray("backends")) {
        if (((JsonObject) b).getString("id").equals(id)) {
          return ((JsonObject) b).getString("state");
        }
      }
    }
    return "absent";
  }

  @Test
  void aWebSocketTunnelsThroughTheTlsConnection() throws Exception {
    PemKeyCertOptions cert = new PemKeyCertOptions().setCertPath(TlsBackend.file("backend.pem"))
        .setKeyPath(TlsBackend.file("backend.key"));
    HttpServer echo = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setKeyCertOptions(cert))
        .webSocketHandler(ws -> ws.textMessageHandler(m -> ws.writeTextMessage("echo " + m)))
        .listen(0, "127.0.0.1").await(5, TimeUnit.SECONDS);
    Fairway fw = start("https://127.0.0.1:" + echo.actualPort(), ca("ca.pem"));

    WebSocketClient wsClient = vertx.createWebSocketClient();
    WebSocket ws = TestClient.onLoop(vertx, () -> wsClient.connect(fw.proxyPort(), "127.0.0.1", "/chat"))
        .await(5, TimeUnit.SECONDS);
    Promise<String> reply = Promise.promise();
    ws.textMessageHandler(reply::tryComplete);
    ws.writeTextMessage("over tls");

    assertThat(reply.future().await(5, TimeUnit.SECONDS)).isEqualTo("echo over tls");
    ws.close().await(5, TimeUnit.SECONDS);
  }
}
