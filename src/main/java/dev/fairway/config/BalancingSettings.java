package dev.fairway.config;

/**
 * Tuning of the load-aware strategies and of the capability scores (seeds 001/002 and 004, gRPC
 * A58); every value has a sensible default.
 *
 * <p>Example: {@code {"errorWindowMs": 5000}} makes a least-loaded service forget a backend's
 * recent errors twice as fast as the default; {@code {"blackoutMs": 500}} lets weighted round
 * robin use a backend's reported load half a second after its first report.
 *
 * @param errorWindowMs           least-loaded: time constant over which a recent error keeps
 *                                counting as an active request
 * @param ewmaDecayMs             p2c-peak-ewma: decay time constant of the latency EWMA
 * @param errorPenaltyMs          p2c-peak-ewma: latency a failed request counts as, at least
 * @param fairShareWindow         fair-share: completions remembered per backend
 * @param fairShareMedian         fair-share: use the moving median instead of the average
 * @param blackoutMs              weighted strategies: a reported weight is used only this long
 *                                after a backend's first report
 * @param expirationMs            weighted strategies: a weight expires after this long without
 *                                reports
 * @param errorUtilizationPenalty weighted strategies: how much {@code eps/qps} adds to utilization
 */
public record BalancingSettings(long errorWindowMs, long ewmaDecayMs, long errorPenaltyMs, int fairShareWindow,
                                boolean fairShareMedian, long blackoutMs, long expirationMs,
                                double errorUtilizationPenalty) {
  /** Every default. */
  public static final BalancingSettings DEFAULTS =
      new BalancingSettings(10_000, 10_000, 1_000, 16, false, 10_000, 180_000, 1.0);
}
