package dev.fairway.proxy.tls;

import dev.fairway.config.TlsSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslHandler;
import javax.net.ssl.SSLException;

/**
 * What the TLS listener puts in front of a connection's HTTP handlers: a {@link PlainHttpSniffer},
 * then Netty's {@link SniHandler}, which reads the ClientHello's server name, picks that
 * certificate's context ({@link TlsContexts}) and replaces itself with its {@link SslHandler}.
 * The HTTP handlers behind see decrypted bytes: an {@code h2} client (ALPN) opens with HTTP/2's
 * preface and takes the HTTP/2 path; an {@code http/1.1} client, or one without ALPN, takes the
 * HTTP/1 path.
 *
 * <p>Example: {@code TlsTerminator.create(settings, registry).install(child.pipeline())} before
 * the proxy's own initializer; {@code curl --http2 https://api.example.com:8443/} is served with
 * the certificate whose SANs cover {@code api.example.com}, over HTTP/2. When {@code a.pem} is
 * renewed on disk, {@link #rescan} makes the next handshakes present the new certificate.
 */
public final class TlsTerminator {
  /** The SNI handler's name (the {@link SslHandler}'s once the server name is known). */
  public static final String NAME = "fairway-tls";
  /** Largest ClientHello accepted, and how long the SNI, then the handshake, may take. */
  private static final int MAX_CLIENT_HELLO = 16 * 1024;
  private static final long HANDSHAKE_TIMEOUT_MS = 10_000;

  private final ListenerCertificates certificates;
  private final TlsMeters meters;

  private TlsTerminator(ListenerCertificates certificates, TlsMeters meters) {
    this.certificates = certificates;
    this.meters = meters;
  }

  /** Builds the contexts (and logs the provider) and registers the TLS counters. */
  public static TlsTerminator create(TlsSettings settings, MeterRegistry registry) throws SSLException {
    return new TlsTerminator(ListenerCertificates.load(settings), new TlsMeters(registry));
  }

  /** Adds the sniffer and the SNI handler at the pipeline's end. */
  public void install(ChannelPipeline p) {
    p.addLast(PlainHttpSniffer.NAME, new PlainHttpSniffer(meters, NAME));
    p.addLast(NAME, new SniHandler(certificates.mapping(), MAX_CLIENT_HELLO, HANDSHAKE_TIMEOUT_MS));
  }

  /**
   * Re-reads the certificate, key and client CA files (blocking: call it off the event loops) and
   * serves new handshakes with them if any changed; a file that cannot be used is logged once and
   * the running certificates stay. Open connections keep theirs.
   */
  public void rescan() {
    certificates.rescan();
  }

  /** Applies a reloaded config's {@code proxy.tls} (same port) to new handshakes; blocking, like {@link #rescan}. */
  public void reconfigure(TlsSettings next) {
    certificates.reconfigure(next);
  }
}
