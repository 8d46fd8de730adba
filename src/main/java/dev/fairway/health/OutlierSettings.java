package dev.fairway.health;

/**
 * When passive health checking ejects a backend, and for how long.
 *
 * <p>Example: {@link #DEFAULTS} = {@code (5, 30000, 300000, 50)}: five connect failures or 5xx
 * answers in a row eject a backend for 30 s the first time, 60 s the second, 90 s the third, up
 * to 300 s, and never more than half of the backends at once.
 *
 * @param consecutiveFailures failures in a row that eject, at least 1
 * @param baseEjectionMs      length of the first ejection; the n-th lasts n times this
 * @param maxEjectionMs       longest ejection, at least {@code baseEjectionMs}; also the clean
 *                            time after which the ejection count goes down by one
 * @param maxEjectionPercent  most backends ejected at once, in percent of the members, 0-100
 *                            (rounded down, and at least one backend always stays)
 */
public record OutlierSettings(int consecutiveFailures, long baseEjectionMs, long maxEjectionMs,
                              int maxEjectionPercent) {
  /** Five failures, 30 s growing to 300 s, at most 50%. */
  public static final OutlierSettings DEFAULTS = new OutlierSettings(5, 30_000, 300_000, 50);

  public OutlierSettings {
    if (consecutiveFailures < 1) {
      throw new IllegalArgumentException("consecutiveFailures must be >= 1: " + consecutiveFailures);
    }
    if (baseEjectionMs < 1 || maxEjectionMs < baseEjectionMs) {
      throw new IllegalArgumentException(
          "need 1 <= baseEjectionMs <= maxEjectionMs: " + baseEjectionMs + ", " + maxEjectionMs);
    }
    if (maxEjectionPercent < 0 || maxEjectionPercent > 100) {
      throw new IllegalArgumentException("maxEjectionPercent must be 0-100: " + maxEjectionPercent);
    }
  }
}
