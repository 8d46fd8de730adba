package dev.fairway.config;

/**
 * A service's {@code outlierDetection}: when passive health checking ejects one of its backends,
 * for how long, and how long a fast failure keeps its slot.
 *
 * <p>Example: {@link #DEFAULTS}: five 5xx answers in a row, or five gateway failures in a row
 * (502, 503, 504 or no connection), eject a backend for 30 s the first time, 60 s the second,
 * 90 s the third, up to 300 s, and never more than half of a subset at once; a failure answered
 * in under 100 ms keeps its slot until 100 ms after the request began; success-rate ejection is
 * off.
 *
 * @param consecutive5xx             5xx answers in a row that eject (a backend's own 503 with
 *                                   {@code Retry-After} says "overloaded" and neither counts nor
 *                                   breaks the run; a connect failure is no answer and does not
 *                                   count), at least 1
 * @param consecutiveGatewayFailures 502, 503, 504 answers, connect failures or answers not come in
 *                                   time, in a row, that eject (another 5xx breaks the run), at least 1
 * @param baseEjectionMs             length of the first ejection; the n-th lasts n times this
 * @param maxEjectionMs              longest ejection, at least {@code baseEjectionMs}; also the
 *                                   clean time after which the ejection count goes down by one
 * @param maxEjectionPercent         most backends ejected at once, in percent of a subset, 0-100
 *                                   (rounded down, and at least one backend always stays)
 * @param failurePenaltyMs           a failed request counts against its backend's capacity until
 *                                   this long after it began (0: not at all), so that a backend
 *                                   failing fast does not free its slots first
 * @param successRate                success-rate ejection, or {@code null} when off
 */
public record OutlierSettings(int consecutive5xx, int consecutiveGatewayFailures, long baseEjectionMs,
                              long maxEjectionMs, int maxEjectionPercent, long failurePenaltyMs,
                              SuccessRateSettings successRate) {
  /** Five in a row, 30 s growing to 300 s, at most 50 %, 100 ms penalty, no success-rate ejection. */
  public static final OutlierSettings DEFAULTS = new OutlierSettings(5, 5, 30_000, 300_000, 50, 100, null);

  public OutlierSettings {
    if (consecutive5xx < 1 || consecutiveGatewayFailures < 1) {
      throw new IllegalArgumentException("consecutive5xx and consecutiveGatewayFailures must be >= 1: "
          + consecutive5xx + ", " + consecutiveGatewayFailures);
    }
    if (baseEjectionMs < 1 || maxEjectionMs < baseEjectionMs) {
      throw new IllegalArgumentException(
          "need 1 <= baseEjectionMs <= maxEjectionMs: " + baseEjectionMs + ", " + maxEjectionMs);
    }
    if (maxEjectionPercent < 0 || maxEjectionPercent > 100) {
      throw new IllegalArgumentException("maxEjectionPercent must be 0-100: " + maxEjectionPercent);
    }
    if (failurePenaltyMs < 0) {
      throw new IllegalArgumentException("failurePenaltyMs must be >= 0: " + failurePenaltyMs);
    }
  }

  /**
   * Success-rate ejection (Envoy's): a backend whose success rate lies far below its peers'.
   *
   * <p>Example: {@link #DEFAULTS}: every 10 s, among the members with at least 100 answered
   * requests in those 10 s, if there are at least 5 of them, eject each whose success rate is below
   * {@code mean - 1.9 * stdev} of theirs. Rates 99, 99, 98, 99, 60 % (mean 91, stdev 15.5) eject
   * the 60 % one (threshold 61.5 %).
   *
   * @param intervalMs    how often the rates are compared, and the window they are counted over;
   *                      at least {@value #MIN_INTERVAL_MS} (the period requests are reported in)
   * @param minimumHosts  members with {@code requestVolume} requests needed to compare at all, at least 1
   * @param requestVolume answered requests a member needs in the interval to be compared, at least 1
   * @param stdevFactor   how many standard deviations below the mean ejects, at least 0
   */
  public record SuccessRateSettings(long intervalMs, int minimumHosts, int requestVolume, double stdevFactor) {
    /** Shortest interval: requests are reported to the balancer every 250 ms. */
    public static final long MIN_INTERVAL_MS = 250;
    /** Envoy's defaults: 10 s, 5 hosts, 100 requests, 1.9 standard deviations. */
    public static final SuccessRateSettings DEFAULTS = new SuccessRateSettings(10_000, 5, 100, 1.9);

    public SuccessRateSettings {
      if (intervalMs < MIN_INTERVAL_MS || minimumHosts < 1 || requestVolume < 1) {
        throw new IllegalArgumentException("need intervalMs >= " + MIN_INTERVAL_MS
            + ", minimumHosts >= 1, requestVolume >= 1: " + intervalMs + ", " + minimumHosts + ", " + requestVolume);
      }
      if (!(stdevFactor >= 0) || Double.isInfinite(stdevFactor)) {
        throw new IllegalArgumentException("stdevFactor must be a finite number >= 0: " + stdevFactor);
      }
    }
  }
}
