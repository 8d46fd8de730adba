package dev.fairway.testing;

import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.ServerSSLOptions;
import java.nio.file.Path;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTPS backend on 127.0.0.1 with a certificate of {@code src/test/resources/upstream-tls},
 * optionally requiring a client certificate: answers {@code GET /health} with {@code ok} and
 * anything else with {@code tls <path>}, and remembers the connections that carried those other
 * requests, the SNI names it was asked for and how many health checks came.
 *
 * <p>Example: {@code TlsBackend.start(vertx, "backend", null)} serves {@code backend.pem} (for
 * 127.0.0.1 and localhost, signed by {@code ca.pem}); {@code TlsBackend.start(vertx, "backend",
 * "ca.pem")} also requires a client certificate signed by {@code ca.pem}.
 */
public final class TlsBackend implements AutoCloseable {
  private final HttpServer server;
  private final Set<HttpConnection> connections = Collections.synchronizedSet(
      Collections.newSetFromMap(new IdentityHashMap<>()));
  private final Set<String> serverNames = ConcurrentHashMap.newKeySet();
  private final AtomicInteger healthChecks = new AtomicInteger();

  private TlsBackend(Vertx vertx, String name, String clientCa) {
    HttpServerOptions o = new HttpServerOptions().setSsl(true).setSni(true)
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(file(name + ".pem")).setKeyPath(file(name + ".key")));
    if (clientCa != null) {
      o.setClientAuth(ClientAuth.REQUIRED).setTrustOptions(new PemTrustOptions().addCertPath(file(clientCa)));
    }
    server = vertx.createHttpServer(o).requestHandler(req -> {
      String sni = req.connection().indicatedServerName();
      if (sni != null) {
        serverNames.add(sni);
      }
      if ("/health".equals(req.path())) {
        healthChecks.incrementAndGet();
        req.response().end("ok");
        return;
      }
      connections.add(req.connection());
      req.response().end("tls " + req.path());
    });
  }

  /** The absolute path of a fixture file of {@code src/test/resources/upstream-tls}. */
  public static String file(String name) {
    return Path.of("src/test/resources/upstream-tls", name).toAbsolutePath().toString();
  }

  /**
   * Starts with the certificate {@code name.pem} and key {@code name.key} and waits until listening.
   *
   * @param clientCa a CA file whose client certificates are required, or {@code null}: none asked for
   */
  public static TlsBackend start(Vertx vertx, String name, String clientCa) {
    TlsBackend b = new TlsBackend(vertx, name, clientCa);
    try {
      b.server.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("TLS backend did not start", e);
    }
    return b;
  }

  public int port() {
    return server.actualPort();
  }

  /** {@code https://127.0.0.1:port}. */
  public String url() {
    return "https://127.0.0.1:" + port();
  }

  /** How many TLS connections carried requests other than health checks. */
  public int connections() {
    return connections.size();
  }

  /** The SNI names clients asked for. */
  public Set<String> serverNames() {
    return Set.copyOf(serverNames);
  }

  /**
   * Serves new connections with {@code name.pem} and {@code name.key} from now on (a renewed
   * certificate); open connections keep the old one.
   */
  public void renew(String name) throws Exception {
    server.updateSSLOptions(new ServerSSLOptions().setSni(true).setKeyCertOptions(
        new PemKeyCertOptions().setCertPath(file(name + ".pem")).setKeyPath(file(name + ".key"))))
        .await(10, TimeUnit.SECONDS);
  }

  /** Closes the connections that carried requests other than health checks, so that the next ones are new. */
  public void closeConnections() {
    List<HttpConnection> open;
    synchronized (connections) {
      open = List.copyOf(connections);
    }
    open.forEach(HttpConnection::close);
  }

  public int healthChecks() {
    return healthChecks.get();
  }

  @Override
  public void close() throws Exception {
    server.close().await(10, TimeUnit.SECONDS);
  }
}
