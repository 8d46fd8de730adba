package dev.fairway.config;

import java.util.Optional;

/**
 * The client-facing HTTP listener.
 *
 * <p>Example: {@code {"host": "0.0.0.0", "port": 8080, "instances": 0}} listens on every
 * interface with one proxy verticle per event loop; on {@code SIGTERM} it answers its health
 * check with 503 but keeps serving for {@code drainGraceMs}, then stops accepting and gives
 * in-flight requests up to {@code drainTimeoutMs} to finish.
 *
 * @param host           address to bind
 * @param port           port to bind (0 picks a free one; -1: no cleartext listener, TLS only)
 * @param instances      number of proxy verticles; 0 means one per event loop
 * @param drainGraceMs   how long to keep serving after SIGTERM (so load balancers notice)
 * @param drainTimeoutMs longest wait for in-flight requests once no longer accepting
 * @param limits         what the listener accepts from clients
 * @param tls            the TLS listener on the same host, when configured
 * @param acceptProxyProtocol whether every connection (cleartext and TLS) opens with a PROXY
 *                       protocol header (v1 or v2) naming the client, as an L4 balancer sends it
 * @param h2Instances    how many of the proxy verticles serve HTTP/2 client connections (h2c or
 *                       TLS with ALPN {@code h2}), at most {@code instances}; 0 means one per core
 *                       when some service has {@code h2c://} backends, else all of them
 */
public record ProxySettings(String host, int port, int instances, long drainGraceMs, long drainTimeoutMs,
                            EdgeLimits limits, Optional<TlsSettings> tls, boolean acceptProxyProtocol,
                            int h2Instances) {
  /** {@code proxy.port} value that turns the cleartext listener off. */
  public static final int NO_PORT = -1;

  /** Settings with the default {@link EdgeLimits}, no TLS and no PROXY protocol. */
  public ProxySettings(String host, int port, int instances, long drainGraceMs, long drainTimeoutMs) {
    this(host, port, instances, drainGraceMs, drainTimeoutMs, EdgeLimits.DEFAULTS, Optional.empty(), false, 0);
  }

  /** These settings with {@code tls} instead of this one's. */
  public ProxySettings withTls(Optional<TlsSettings> tls) {
    return new ProxySettings(host, port, instances, drainGraceMs, drainTimeoutMs, limits, tls, acceptProxyProtocol,
        h2Instances);
  }

  /** Whether the cleartext listener is on. */
  public boolean cleartext() {
    return port != NO_PORT;
  }
}
