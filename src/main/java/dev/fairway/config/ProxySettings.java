package dev.fairway.config;

/**
 * The client-facing HTTP listener.
 *
 * <p>Example: {@code {"host": "0.0.0.0", "port": 8080, "instances": 0}} listens on every
 * interface with one proxy verticle per event loop; on {@code SIGTERM} it answers its health
 * check with 503 but keeps serving for {@code drainGraceMs}, then stops accepting and gives
 * in-flight requests up to {@code drainTimeoutMs} to finish.
 *
 * @param host           address to bind
 * @param port           port to bind (0 picks a free one)
 * @param instances      number of proxy verticles; 0 means one per event loop
 * @param drainGraceMs   how long to keep serving after SIGTERM (so load balancers notice)
 * @param drainTimeoutMs longest wait for in-flight requests once no longer accepting
 * @param limits         what the listener accepts from clients
 */
public record ProxySettings(String host, int port, int instances, long drainGraceMs, long drainTimeoutMs,
                            EdgeLimits limits) {
  /** Settings with the default {@link EdgeLimits}. */
  public ProxySettings(String host, int port, int instances, long drainGraceMs, long drainTimeoutMs) {
    this(host, port, instances, drainGraceMs, drainTimeoutMs, EdgeLimits.DEFAULTS);
  }
}
