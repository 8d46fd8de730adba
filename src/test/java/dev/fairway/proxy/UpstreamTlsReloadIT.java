package dev.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.control.BalancerVerticle;
import dev.fairway.proxy.upstream.UpstreamTlsContexts;
import dev.fairway.testing.Await;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TlsBackend;
import dev.fairway.testing.TlsFiles;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Backend TLS files reloaded while running, with real TLS backends and a Fairway scanning every
 * 100 ms: the backends' CA rotated through a bundle of old and new CA while the backend's
 * certificate is renewed under the new one, with proxied requests and health checks (every 100 ms,
 * one failure marks the backend unhealthy) passing throughout; a garbage {@code caPath} logged
 * once while the previous CA stays in use; health checks sending SNI {@code localhost} as proxied
 * connections do.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UpstreamTlsReloadIT extends VertxTestBase {
  @TempDir
  Path dir;
  private Path caFile;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(UpstreamTlsContexts.class);
  private final Logger balancer = (Logger) LoggerFactory.getLogger(BalancerVerticle.class);

  @BeforeEach
  void setUp() throws IOException {
    caFile = dir.resolve("backends-ca.pem");
    Files.copy(Path.of(TlsBackend.file("ca.pem")), caFile);
    logs.start();
    logger.addAppender(logs);
    balancer.addAppender(logs);
  }

  @AfterEach
  void detach() {
    logger.detachAppender(logs);
    balancer.detachAppender(logs);
  }

  /** Service {@code api} over {@code url} trusting {@link #caFile}, health checks every {@code checkMs}. */
  private Fairway start(String url, long checkMs) throws Exception {
    TestConfig cfg = TestConfig.service("api", new JsonObject().put("id", "b1").put("url", url).put("capacity", 4))
        .instances(1).healthCheck(checkMs, 1000, 1, 1);
    cfg.lastService().put("tls", new JsonObject().put("caPath", caFile.toString()));
    cfg.json().put("reload", new JsonObject().put("scanPeriodMs", 100));
    return Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);
  }

  private int status(Fairway fw) throws Exception {
    return TestClient.get(vertx, client, fw.proxyPort(), "/x").status();
  }

  @Test
  void aCaRotatedThroughABundleWhileTheBackendIsRenewedFailsNoRequestAndNoHealthCheck() throws Exception {
    TlsBackend b = TlsBackend.start(vertx, "backend", null);
    Fairway fw = start(b.url(), 100);
    assertThat(status(fw)).isEqualTo(200);

    TlsFiles.replaceAtomically(caFile, concat("ca.pem", "renewed-ca.pem"));
    awaitReloads(1);
    int pooled = b.connections();
    assertThat(status(fw)).isEqualTo(200);
    assertThat(b.connections()).as("the pooled connection is kept across the reload").isEqualTo(pooled);
    b.renew("backend-renewed");
    b.closeConnections();
    int checks = b.healthChecks();
    Await.until(() -> b.healthChecks() >= checks + 3);
    int connections = b.connections();
    assertThat(status(fw)).as("a new connection to the renewed backend").isEqualTo(200);
    assertThat(b.connections()).isEqualTo(connections + 1);

    TlsFiles.replaceAtomically(caFile, Files.readAllBytes(Path.of(TlsBackend.file("renewed-ca.pem"))));
    awaitReloads(2);
    b.closeConnections();
    int after = b.healthChecks();
    Await.until(() -> b.healthChecks() >= after + 3);
    assertThat(status(fw)).as("trusting the new CA alone").isEqualTo(200);
    assertThat(warnings()).isEmpty();
    assertThat(logs.list).map(ILoggingEvent::getFormattedMessage).as("no health check failed")
        .noneMatch(m -> m.contains("-> unhealthy"));
  }

  @Test
  void aGarbageCaFileIsLoggedOnceAndThePreviousCaStaysInUse() throws Exception {
    TlsBackend b = TlsBackend.start(vertx, "backend", null);
    Fairway fw = start(b.url(), 3_600_000);
    assertThat(status(fw)).isEqualTo(200);

    TlsFiles.replaceAtomically(caFile, "garbage\n".getBytes(StandardCharsets.US_ASCII));
    Await.until(() -> !warnings().isEmpty());
    Thread.sleep(600); // six more scans of the same file
    b.closeConnections();

    assertThat(status(fw)).as("a new connection, verified with the previous CA").isEqualTo(200);
    assertThat(warnings()).hasSize(1);
    assertThat(warnings().get(0)).contains(caFile.toString()).contains("BEGIN CERTIFICATE");
  }

  @Test
  void healthChecksSendTheSniOfADotlessHostAsProxiedConnectionsDo() throws Exception {
    TlsBackend b = TlsBackend.start(vertx, "backend", null);
    start("https://localhost:" + b.port(), 100);

    Await.until(() -> b.healthChecks() >= 1);

    assertThat(b.serverNames()).containsExactly("localhost");
  }

  private List<String> warnings() {
    return logs.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage).toList();
  }

  private void awaitReloads(int n) throws Exception {
    Await.until(() -> logs.list.stream().filter(e -> e.getLevel() == Level.INFO
        && e.getFormattedMessage().startsWith("backend TLS: reloaded")).count() >= n);
  }

  private static byte[] concat(String... fixtures) throws IOException {
    StringBuilder out = new StringBuilder();
    for (String f : fixtures) {
      out.append(Files.readString(Path.of(TlsBackend.file(f)), StandardCharsets.US_ASCII));
    }
    return out.toString().getBytes(StandardCharsets.US_ASCII);
  }
}
