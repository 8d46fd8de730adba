package dev.fairway.proxy.tls;

import dev.fairway.config.FileBacked;
import dev.fairway.config.FileSnapshot;
import dev.fairway.config.TlsSettings;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.Mapping;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener's live {@link TlsContexts}: its SNI {@link #mapping()} reads the current contexts at
 * every new handshake, and {@link #rescan()} (off the event loops) rebuilds them when a
 * certificate, key or client CA file changes. Connections already open keep the context they
 * were made with.
 *
 * <p>Example: {@code a.pem} and {@code a.key} are replaced by a renewed pair; at the next scan the
 * log reads {@code TLS: reloaded certificate(s) after [a.pem, a.key] changed: a.pem serial 1f3b} and
 * new handshakes get serial {@code 1f3b}. Garbage written to {@code a.pem} instead logs one
 * {@code TLS: certificate files changed but not reloaded, still serving a.pem serial 1f3a: a.pem:
 * expected PEM certificates (...)} and nothing more until the file changes again.
 */
final class ListenerCertificates {
  private static final Logger LOG = LoggerFactory.getLogger(ListenerCertificates.class);

  /** The settings in force and their contexts, swapped together. */
  private record Live(TlsSettings settings, FileBacked<TlsContexts> contexts) {
    TlsContexts current() {
      return contexts.current().orElseThrow();
    }
  }

  /** Chosen (and logged) once: every rebuild uses the same implementation. */
  private final SslProvider provider;
  private volatile Live live;

  private ListenerCertificates(SslProvider provider, Live live) {
    this.provider = provider;
    this.live = live;
  }

  /** Chooses the provider, reads the files and builds the contexts now. */
  static ListenerCertificates load(TlsSettings settings) throws SSLException {
    SslProvider provider = TlsContexts.provider();
    return new ListenerCertificates(provider, live(settings, provider));
  }

  private static Live live(TlsSettings settings, SslProvider provider) throws SSLException {
    FileBacked<TlsContexts> contexts = FileBacked.load(TlsContexts.files(settings), FileSnapshot.DISK,
        files -> TlsContexts.build(settings, files, provider));
    if (contexts.current().isEmpty()) {
      throw new SSLException(contexts.failure().orElseThrow());
    }
    return new Live(settings, contexts);
  }

  /** Server name to context, as of the handshake that asks. */
  Mapping<String, SslContext> mapping() {
    return name -> live.current().mapping().map(name);
  }

  /** Re-reads the files (blocking) and swaps in new contexts if any changed and all are usable. */
  synchronized void rescan() {
    Live l = live;
    FileBacked.Scan<TlsContexts> scan = l.contexts().scan();
    if (scan instanceof FileBacked.Reloaded<TlsContexts> r) {
      LOG.info("TLS: reloaded certificate(s) after {} changed: {}", r.changed(), r.value().certificates());
    } else if (scan instanceof FileBacked.Rejected<TlsContexts> r) {
      LOG.warn("TLS: certificate files changed but not reloaded, still serving {}: {}", l.current().certificates(),
          r.reason());
    }
  }

  /**
   * New settings for the same port from a reloaded config (blocking: reads the files): applied to
   * new handshakes if every file is usable, else the running ones stay and one line says why.
   */
  synchronized void reconfigure(TlsSettings next) {
    Live l = live;
    if (next.equals(l.settings())) {
      return;
    }
    try {
      live = live(next, provider);
      LOG.info("TLS: new proxy.tls settings applied to new connections: {}", live.current().certificates());
    } catch (SSLException e) {
      LOG.warn("TLS: new proxy.tls settings not applied, still serving {}: {}", l.current().certificates(),
          e.getMessage());
    }
  }
}
