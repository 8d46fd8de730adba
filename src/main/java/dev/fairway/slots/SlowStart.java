package dev.fairway.slots;

/**
 * How a backend that joins a running service, or returns from unhealthy, ejected or lame duck,
 * ramps up: from {@code initialPercent} of its capacity and weight to all of them over
 * {@code durationMs}, linearly.
 *
 * <p>Example: {@code new SlowStart(10_000, 10)}: a returning backend of capacity 50 and weight 2
 * may hold 5 requests with weight 0.2 at once, 28 with weight 1.1 after 5 s, and all 50 with
 * weight 2 after 10 s.
 *
 * @param durationMs     length of the ramp; 0 turns slow start off
 * @param initialPercent share of capacity and weight at the start, 1-100
 */
public record SlowStart(long durationMs, int initialPercent) {
  /** No ramp: a backend gets everything at once. */
  public static final SlowStart OFF = new SlowStart(0, 100);

  public SlowStart {
    if (durationMs < 0 || initialPercent < 1 || initialPercent > 100) {
      throw new IllegalArgumentException("need durationMs >= 0 and initialPercent 1-100: " + durationMs + ", "
          + initialPercent);
    }
  }

  /** The share, in (0, 1], after {@code elapsedNanos} of the ramp. */
  public double ramp(long elapsedNanos) {
    if (durationMs == 0 || elapsedNanos >= durationMs * 1_000_000L) {
      return 1.0;
    }
    double start = initialPercent / 100.0;
    return start + (1 - start) * Math.max(0, elapsedNanos) / (durationMs * 1_000_000.0);
  }
}
