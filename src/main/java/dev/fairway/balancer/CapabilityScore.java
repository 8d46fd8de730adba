package dev.fairway.balancer;

import java.util.List;

/**
 * The capability score of weighted round robin (seed 001), computed as gRPC's A58
 * ({@code weighted_round_robin}) does from the backends' load reports.
 *
 * <p>Example: a backend reporting {@code cpu_utilization=0.5, rps_fractional=100, eps=10} has
 * utilization {@code 0.5 + 10 / 100 × 1.0 = 0.6} and weight {@code 100 / 0.6} ≈ 166.7; next to a
 * backend of weight 200 and one without a usable weight (which gets the mean, 183.3), configured
 * weights 1, 1, 2 make the scores 166.7, 200 and 366.7.
 *
 * <ul>
 *   <li>utilization = application utilization if above 0, else CPU utilization;</li>
 *   <li>if qps &gt; 0 and utilization &gt; 0: utilization += eps / qps × errorUtilizationPenalty
 *       (default 1.0) and weight = qps / utilization; otherwise the report gives no weight (0);</li>
 *   <li>whether a weight is in use yet, or still, is the {@link ScoreTracker}'s business (blackout
 *       and expiration periods);</li>
 *   <li>backends with no usable weight get the mean of the usable ones (1.0 when none is usable),
 *       then each score is multiplied by the backend's configured weight.</li>
 * </ul>
 */
public final class CapabilityScore {
  /** Default error utilization penalty of A58. */
  public static final double DEFAULT_ERROR_UTILIZATION_PENALTY = 1.0;

  private CapabilityScore() {
  }

  /**
   * The A58 weight of one report, or 0 when it gives none (no qps, no utilization, or a value that
   * is not a finite non-negative number).
   */
  public static double weight(LoadReport report, double errorUtilizationPenalty) {
    double utilization = report.applicationUtilization() > 0
        ? report.applicationUtilization() : report.cpuUtilization();
    double qps = report.qps();
    if (!(qps > 0 && utilization > 0) || !Double.isFinite(qps) || !Double.isFinite(utilization)) {
      return 0;
    }
    double eps = report.eps();
    if (eps > 0 && errorUtilizationPenalty > 0 && Double.isFinite(eps)) {
      utilization += eps / qps * errorUtilizationPenalty;
    }
    double w = qps / utilization;
    return Double.isFinite(w) && w > 0 ? w : 0;
  }

  /**
   * Scores from measured weights: each 0 (or otherwise unusable) entry becomes the mean of the
   * usable ones (1.0 when none is), then each is multiplied by the configured weight.
   *
   * @param measured   per backend, its usable weight or 0
   * @param configured per backend, its configured weight (same length)
   */
  public static double[] fill(double[] measured, double[] configured) {
    if (measured.length != configured.length) {
      throw new IllegalArgumentException(measured.length + " measured, " + configured.length + " configured");
    }
    double sum = 0;
    int usable = 0;
    for (double w : measured) {
      if (usable(w)) {
        sum += w;
        usable++;
      }
    }
    double mean = usable == 0 ? 1.0 : sum / usable;
    double[] scores = new double[measured.length];
    for (int i = 0; i < scores.length; i++) {
      scores[i] = (usable(measured[i]) ? measured[i] : mean) * configured[i];
    }
    return scores;
  }

  /** {@link #fill} over the trackers' {@link ScoreTracker#weight weights} at {@code nowNanos}. */
  public static double[] weights(List<ScoreTracker> trackers, double[] configured, long nowNanos) {
    double[] measured = new double[trackers.size()];
    for (int i = 0; i < measured.length; i++) {
      measured[i] = trackers.get(i).weight(nowNanos);
    }
    return fill(measured, configured);
  }

  private static boolean usable(double w) {
    return w > 0 && w < Double.POSITIVE_INFINITY;
  }
}
