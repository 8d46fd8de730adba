package dev.fairway.balancer;

/**
 * One backend's capability weight over time, as gRPC's A58 keeps it: a weight is used only after
 * a blackout period since the first report that gave one, and no longer once reports stop for the
 * expiration period.
 *
 * <p>Example (defaults: blackout 10 s, expiration 3 min, penalty 1.0): a report of
 * {@code cpu 0.5, qps 100} at 0 s gives weight 200, but {@link #weight} is 0 at 5 s and 200 from
 * 10 s on; with no further report it is 0 again from 3 min on, and the next report starts a new
 * blackout.
 *
 * <p>Not thread-safe; the balancer owns it.
 */
public final class ScoreTracker {
  /** Default blackout period: 10 s. */
  public static final long DEFAULT_BLACKOUT_NANOS = 10_000_000_000L;
  /** Default expiration period: 3 min. */
  public static final long DEFAULT_EXPIRATION_NANOS = 180_000_000_000L;

  private final long blackoutNanos;
  private final long expirationNanos;
  private final double errorUtilizationPenalty;
  private boolean reporting;
  private long nonEmptySince;
  private long lastUpdate;
  private double weight;

  public ScoreTracker() {
    this(DEFAULT_BLACKOUT_NANOS, DEFAULT_EXPIRATION_NANOS, CapabilityScore.DEFAULT_ERROR_UTILIZATION_PENALTY);
  }

  public ScoreTracker(long blackoutNanos, long expirationNanos, double errorUtilizationPenalty) {
    if (blackoutNanos < 0 || expirationNanos <= 0 || !(errorUtilizationPenalty >= 0)) {
      throw new IllegalArgumentException("blackout " + blackoutNanos + ", expiration " + expirationNanos
          + ", penalty " + errorUtilizationPenalty);
    }
    this.blackoutNanos = blackoutNanos;
    this.expirationNanos = expirationNanos;
    this.errorUtilizationPenalty = errorUtilizationPenalty;
  }

  /** Takes a report received at {@code nowNanos}; a report that gives no weight is ignored. */
  public void update(LoadReport report, long nowNanos) {
    double w = CapabilityScore.weight(report, errorUtilizationPenalty);
    if (w == 0) {
      return;
    }
    if (!reporting || nowNanos - lastUpdate >= expirationNanos) {
      reporting = true;
      nonEmptySince = nowNanos;
    }
    lastUpdate = nowNanos;
    weight = w;
  }

  /** The usable weight at {@code nowNanos}, or 0 (none yet, in blackout, or expired). */
  public double weight(long nowNanos) {
    if (!reporting || nowNanos - lastUpdate >= expirationNanos) {
      return 0;
    }
    if (nowNanos - nonEmptySince < blackoutNanos) {
      return 0;
    }
    return weight;
  }
}
