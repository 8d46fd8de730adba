package dev.fairway.config;

import dev.fairway.config.OutlierSettings.SuccessRateSettings;

/**
 * Reads and validates a service's {@code outlierDetection} object, recording each problem on the
 * {@link Node} with its JSON path; absent keys take {@link OutlierSettings#DEFAULTS}.
 *
 * <p>Example: {@code {"consecutive5xx": 3, "successRate": {}}} gives
 * {@code OutlierSettings[3, 5, 30000, 300000, 50, 100, SuccessRateSettings[10000, 5, 100, 1.9]]};
 * {@code {"baseEjectionMs": 60000, "maxEjectionMs": 10}} at {@code services[0].outlierDetection}
 * records {@code services[0].outlierDetection.maxEjectionMs: 10 is invalid; expected an integer
 * from 60000 (baseEjectionMs) to 86400000}.
 */
final class OutlierParser {
  /** Longest ejection that may be configured: one day. */
  static final long MAX_EJECTION_MS = 86_400_000;

  private OutlierParser() {
  }

  static OutlierSettings parse(Node n) {
    OutlierSettings d = OutlierSettings.DEFAULTS;
    int consecutive5xx = n.intIn("consecutive5xx", d.consecutive5xx(), 1, 1_000_000);
    int gateway = n.intIn("consecutiveGatewayFailures", d.consecutiveGatewayFailures(), 1, 1_000_000);
    long base = n.longIn("baseEjectionMs", d.baseEjectionMs(), 1, MAX_EJECTION_MS);
    // as Envoy: without maxEjectionMs, the larger of its default and baseEjectionMs
    long max = n.longIn("maxEjectionMs", Math.max(d.maxEjectionMs(), base), 1, MAX_EJECTION_MS);
    if (max < base) {
      n.problem("maxEjectionMs", max, "an integer from " + base + " (baseEjectionMs) to " + MAX_EJECTION_MS);
      max = base;
    }
    int percent = n.intIn("maxEjectionPercent", d.maxEjectionPercent(), 0, 100);
    long penalty = n.longIn("failurePenaltyMs", d.failurePenaltyMs(), 0, 60_000);
    SuccessRateSettings successRate = n.has("successRate") ? successRate(n.object("successRate")) : null;
    n.rejectUnknownKeys();
    return new OutlierSettings(consecutive5xx, gateway, base, max, percent, penalty, successRate);
  }

  /** {@code successRate}: present, even as {@code {}}, turns success-rate ejection on. */
  private static SuccessRateSettings successRate(Node n) {
    SuccessRateSettings d = SuccessRateSettings.DEFAULTS;
    SuccessRateSettings s = new SuccessRateSettings(
        n.longIn("intervalMs", d.intervalMs(), SuccessRateSettings.MIN_INTERVAL_MS, 3_600_000),
        n.intIn("minimumHosts", d.minimumHosts(), 1, 100_000),
        n.intIn("requestVolume", d.requestVolume(), 1, 1_000_000_000),
        n.doubleIn("stdevFactor", d.stdevFactor(), 0, 100));
    n.rejectUnknownKeys();
    return s;
  }
}
