package dev.fairway.proxy.tls;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.testing.Await;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.TlsClient;
import dev.fairway.testing.TlsFiles;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Certificate reload on the TLS listener with a real Fairway scanning its files every 100 ms and
 * real JDK TLS clients: a renewal under load fails no request and reaches new connections while
 * an open keep-alive connection goes on with the old certificate; a garbage file is logged once
 * and the old certificate stays until a good file arrives; an expired one is served with a warning.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TlsReloadTest extends VertxTestBase {
  private static final long SCAN_MS = 100;
  @TempDir
  Path dir;
  private Path certFile;
  private Path keyFile;
  private TestBackend backend;
  private SSLContext trusting;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(ListenerCertificates.class);

  @BeforeEach
  void setUp() throws Exception {
    backend = TestBackend.start(vertx, req -> req.response().end("hello"));
    certFile = dir.resolve("site.pem");
    keyFile = dir.resolve("site.key");
    Files.copy(Path.of(TlsFiles.path("a.pem")), certFile);
    Files.copy(Path.of(TlsFiles.path("a.key")), keyFile);
    trusting = TlsClient.context(false);
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void detach() {
    logger.detachAppender(logs);
  }

  private Fairway start() {
    return start(SCAN_MS);
  }

  private Fairway start(long scanPeriodMs) {
    JsonObject tls = new JsonObject().put("port", 0).put("certificates", new JsonArray()
        .add(new JsonObject().put("certPath", certFile.toString()).put("keyPath", keyFile.toString())));
    TestConfig c = TestConfig.service("api", backend("b1", backend.port(), 100)).proxy("tls", tls);
    c.json().put("reload", new JsonObject().put("scanPeriodMs", scanPeriodMs));
    return TestFairway.start(vertx, c.build());
  }

  @Test
  void aRenewalUnderLoadReachesNewConnectionsWithoutAFailedRequestAndKeepsOpenOnes() throws Exception {
    Fairway f = start();
    BigInteger oldSerial = serialOf("a.pem");
    BigInteger newSerial = serialOf("a-renewed.pem");
    SSLSocket keptAlive = TlsClient.connect(trusting, f.tlsPort(), "a.test");
    assertThat(keepAliveGet(keptAlive)).isEqualTo("hello");

    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger ok = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    Set<BigInteger> served = ConcurrentHashMap.newKeySet();
    List<Thread> clients = List.of(1, 2, 3).stream().map(i -> new Thread(() -> {
      while (!stop.get()) {
        try (SSLSocket s = TlsClient.connect(trusting, f.tlsPort(), "a.test")) {
          served.add(((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber());
          String answer = TlsClient.get(s, "/");
          if (answer.startsWith("HTTP/1.1 200") && answer.endsWith("hello")) {
            ok.incrementAndGet();
          } else {
            failed.incrementAndGet();
            firstFailure.compareAndSet(null, new AssertionError(answer));
          }
        } catch (IOException | RuntimeException e) {
          failed.incrementAndGet();
          firstFailure.compareAndSet(null, e);
        }
      }
    })).toList();
    clients.forEach(Thread::start);
    try {
      Await.until(() -> ok.get() >= 20);
      replace("a-renewed");
      Await.until(() -> served.contains(newSerial));
      int atSwap = ok.get();
      Await.until(() -> ok.get() >= atSwap + 20);
    } finally {
      stop.set(true);
      for (Thread t : clients) {
        t.join(10_000);
      }
    }

    assertThat(failed.get()).as("failed requests, first: %s", firstFailure.get()).isZero();
    assertThat(served).contains(oldSerial, newSerial);
    try (SSLSocket s = TlsClient.connect(trusting, f.tlsPort(), "a.test")) {
      assertThat(serial(s)).as("a new connection after the swap").isEqualTo(newSerial);
    }
    assertThat(keepAliveGet(keptAlive)).as("the connection opened before the swap").isEqualTo("hello");
    assertThat(serial(keptAlive)).isEqualTo(oldSerial);
    keptAlive.close();
  }

  @Test
  void aGarbageFileIsLoggedOnceAndTheOldCertificateStaysUntilAGoodOneArrives() throws Exception {
    Fairway f = start();
    BigInteger oldSerial = serialOf("a.pem");
    TlsFiles.replaceAtomically(certFile, "not a certificate\n".getBytes(StandardCharsets.US_ASCII));

    Await.until(() -> !warnings().isEmpty());
    Thread.sleep(6 * SCAN_MS); // several more scans of the same bad file
    assertThat(warnings()).hasSize(1);
    assertThat(warnings().get(0)).contains(certFile.toString()).contains("BEGIN CERTIFICATE")
        .contains("still serving");
    try (SSLSocket s = TlsClient.connect(trusting, f.tlsPort(), "a.test")) {
      assertThat(serial(s)).isEqualTo(oldSerial);
      assertThat(TlsClient.get(s, "/")).startsWith("HTTP/1.1 200").endsWith("hello");
    }

    replace("a-renewed");
    BigInteger newSerial = serialOf("a-renewed.pem");
    Await.until(() -> {
      try (SSLSocket s = TlsClient.connect(trusting, f.tlsPort(), "a.test")) {
        return serial(s).equals(newSerial);
      }
    });
    assertThat(logs.list).anyMatch(e -> e.getLevel() == Level.INFO
        && e.getFormattedMessage().contains("reloaded certificate") && e.getFormattedMessage().contains(newSerial.toString(16)));
  }

  @Test
  void anExpiredNewCertificateIsServedWithAWarningAsAtStartUp() throws Exception {
    Logger contexts = (Logger) LoggerFactory.getLogger(TlsContexts.class);
    contexts.addAppender(logs);
    try {
      Fairway f = start();
      replace("expired");
      BigInteger expired = serialOf("expired.pem");
      Await.until(() -> {
        try (SSLSocket s = TlsClient.connect(TlsClient.trustingAll(), f.tlsPort(), "a.test")) {
          return serial(s).equals(expired);
        }
      });
      assertThat(logs.list).anyMatch(e -> e.getLevel() == Level.WARN
          && e.getFormattedMessage().contains("is not valid now") && e.getFormattedMessage().contains("serving it anyway"));
    } finally {
      contexts.detachAppender(logs);
    }
  }

  @Test
  void aScanPeriodOfZeroKeepsTheCertificateOfStartUp() throws Exception {
    Fairway f = start(0);
    replace("a-renewed");
    Thread.sleep(10 * SCAN_MS);

    try (SSLSocket s = TlsClient.connect(trusting, f.tlsPort(), "a.test")) {
      assertThat(serial(s)).isEqualTo(serialOf("a.pem"));
    }
  }

  private List<String> warnings() {
    return logs.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage).toList();
  }

  /** Replaces the served pair with the fixture {@code name}, each file by an atomic rename, key first. */
  private void replace(String name) throws IOException {
    TlsFiles.replaceAtomically(keyFile, Files.readAllBytes(Path.of(TlsFiles.path(name + ".key"))));
    TlsFiles.replaceAtomically(certFile, Files.readAllBytes(Path.of(TlsFiles.path(name + ".pem"))));
  }

  private static BigInteger serialOf(String fixture) throws Exception {
    try (InputStream in = Files.newInputStream(Path.of(TlsFiles.path(fixture)))) {
      return ((X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in))
          .getSerialNumber();
    }
  }

  private static BigInteger serial(SSLSocket s) throws IOException {
    return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
  }

  /** One keep-alive {@code GET /} on {@code s}: the body of a response with {@code Content-Length}. */
  private static String keepAliveGet(SSLSocket s) throws IOException {
    s.getOutputStream().write("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    InputStream in = s.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after " + head.toString(StandardCharsets.ISO_8859_1));
      }
      head.write(b);
    }
    String h = head.toString(StandardCharsets.ISO_8859_1);
    assertThat(h).startsWith("HTTP/1.1 200");
    int length = Integer.parseInt(h.replaceAll("(?is).*\r\ncontent-length: *(\\d+)\r\n.*", "$1"));
    return new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
  }
}
