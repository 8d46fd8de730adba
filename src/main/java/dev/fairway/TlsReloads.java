package dev.fairway;

import dev.fairway.config.FairwayConfig;
import dev.fairway.config.ServiceConfig;
import dev.fairway.config.TlsSettings;
import dev.fairway.proxy.tls.TlsTerminator;
import dev.fairway.proxy.upstream.UpstreamTlsContexts;
import io.vertx.core.Vertx;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the TLS files in force while running: every {@code reload.scanPeriodMs} a worker thread
 * re-reads the listener's certificate, key and client CA files and the files of the backend TLS
 * profiles in use ({@code caPath}, {@code certPath}, {@code keyPath}), and a reloaded config's
 * {@code proxy.tls} is applied to new connections when its port stays the same.
 *
 * <p>Example: with {@code "reload": {"scanPeriodMs": 2000}} an operator renews {@code a.pem} and
 * {@code a.key}; within about two seconds new handshakes present the new certificate and open
 * connections go on with the old one. A new config with {@code proxy.tls.port} 9443 instead of
 * 8443 logs {@code config: proxy.tls port 8443 -> 9443 needs a restart}; its certificates are not
 * applied either. A scan period of 0 turns the file scans off.
 */
final class TlsReloads {
  private static final Logger LOG = LoggerFactory.getLogger(TlsReloads.class);

  private final Vertx vertx;
  private final Optional<TlsSettings> bound;
  private final TlsTerminator listener;
  private final UpstreamTlsContexts upstream;

  /**
   * @param listener the TLS listener's terminator, {@code null} without {@code proxy.tls}
   * @param upstream the contexts of connections to {@code https://} backends
   */
  TlsReloads(Vertx vertx, Optional<TlsSettings> bound, TlsTerminator listener, UpstreamTlsContexts upstream) {
    this.vertx = vertx;
    this.bound = bound;
    this.listener = listener;
    this.upstream = upstream;
  }

  /** Scans the files every {@code periodMs} on a worker thread; 0 or less: never. */
  void start(long periodMs) {
    if (periodMs <= 0) {
      return;
    }
    vertx.setPeriodic(periodMs, id -> vertx.executeBlocking(() -> {
      scan();
      return null;
    }, false));
  }

  private void scan() {
    if (listener != null) {
      listener.rescan();
    }
    upstream.rescan();
  }

  /**
   * A reloaded config (on an event loop): applies its {@code proxy.tls} or says it needs a
   * restart, and forgets the backend TLS contexts of profiles no service uses any more.
   */
  void configChanged(FairwayConfig next) {
    upstream.retain(next.services().stream().map(ServiceConfig::tls).toList());
    Optional<TlsSettings> tls = next.proxy().tls();
    if (tls.isPresent() != bound.isPresent()) {
      LOG.warn("config: proxy.tls {} needs a restart; the running listeners stay as they are",
          tls.isPresent() ? "added" : "removed");
    } else if (tls.isPresent() && tls.get().port() != bound.get().port()) {
      LOG.warn("config: proxy.tls port {} -> {} needs a restart; the TLS listener keeps its port and certificates",
          bound.get().port(), tls.get().port());
    } else if (tls.isPresent()) {
      vertx.executeBlocking(() -> {
        listener.reconfigure(tls.get());
        return null;
      }, false);
    }
  }
}
