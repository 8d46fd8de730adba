package dev.fairway.proxy.tls;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.control.BalancerVerticle;
import dev.fairway.control.ConfigReloader;
import dev.fairway.testing.Await;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TlsClient;
import dev.fairway.testing.TlsFiles;
import dev.fairway.testing.VertxTestBase;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A reloaded config file's {@code proxy.tls}: other certificates on the same port reach new
 * connections; another port is logged as needing a restart and changes nothing.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TlsConfigReloadTest extends VertxTestBase {
  @TempDir
  Path dir;
  private TestBackend backend;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger reloads = (Logger) LoggerFactory.getLogger("dev.fairway.TlsReloads");

  @BeforeEach
  void setUp() {
    backend = TestBackend.start(vertx, req -> req.response().end("hello"));
    logs.start();
    reloads.addAppender(logs);
  }

  @AfterEach
  void detach() {
    reloads.detachAppender(logs);
  }

  private TestConfig config(String certificate, int port) {
    TestConfig c = TestConfig.service("api", backend("b1", backend.port(), 10))
        .proxy("tls", TlsFiles.tls(certificate).put("port", port));
    c.json().put("reload", new JsonObject().put("scanPeriodMs", 100));
    return c;
  }

  @Test
  void newCertificatesOnTheSamePortApplyLiveAndAnotherPortNeedsARestart() throws Exception {
    Path file = dir.resolve("config.json");
    TestConfig first = config("a", 0);
    String text = first.json().encodePrettily();
    Files.writeString(file, text);
    Fairway f = Fairway.start(vertx, first.build(), new BalancerVerticle.ConfigSource(file,
        ConfigReloader.shortHash(text)), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
        .await(10, TimeUnit.SECONDS);
    assertThat(serial(f)).isEqualTo(serialOf("a.pem"));

    Files.writeString(file, config("a-renewed", 0).json().encodePrettily());
    BigInteger renewed = serialOf("a-renewed.pem");
    Await.until(() -> serial(f).equals(renewed));

    Files.writeString(file, config("b", 1).json().encodePrettily());
    Await.until(() -> logs.list.stream().anyMatch(e -> e.getLevel() == Level.WARN
        && e.getFormattedMessage().contains("proxy.tls port 0 -> 1 needs a restart")));
    Thread.sleep(300);
    assertThat(serial(f)).isEqualTo(renewed);
  }

  private BigInteger serial(Fairway f) throws Exception {
    try (SSLSocket s = TlsClient.connect(TlsClient.context(false), f.tlsPort(), "a.test")) {
      return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }

  private static BigInteger serialOf(String fixture) throws Exception {
    try (InputStream in = Files.newInputStream(Path.of(TlsFiles.path(fixture)))) {
      return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in)).getSerialNumber();
    }
  }
}
