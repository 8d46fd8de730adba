package dev.fairway.overload;

/**
 * A running estimate of a low quantile of how long a service's backends take to answer (from the
 * slot's grant to the response head), so that a request whose deadline leaves less than that is
 * not sent: it would only occupy a backend with work its client will not wait for.
 *
 * <p>Frugal streaming with a multiplicative step: each sample above the estimate raises it by
 * {@code STEP * q} (5 % for q 0.25), each one below lowers it by {@code STEP * (1 - q)}, so it settles where a
 * fraction {@code q} of samples fall below. Example: with {@code q} 0.25, after 10 samples of
 * 100 ms the estimate is 100 ms; samples alternating 10 ms and 1000 ms pull it towards 10 ms
 * (the fast mode), not to the 505 ms mean. It says nothing ({@link #nanos} 0) before
 * {@link #MIN_SAMPLES} samples. The event loops of a process share one per service without a lock:
 * two samples at once may lose one, which only slows the estimate a little.
 */
public final class ServiceTime {
  /** Samples before the estimate is used. */
  static final int MIN_SAMPLES = 10;
  private static final double STEP = 0.2;

  private final double q;
  private volatile double estimate;
  private volatile int samples;

  /** @param q the quantile estimated, in (0, 1) */
  public ServiceTime(double q) {
    if (!(q > 0 && q < 1)) {
      throw new IllegalArgumentException("q must be in (0, 1): " + q);
    }
    this.q = q;
  }

  /** One answer took {@code nanos}. */
  public void sample(long nanos) {
    double e = estimate;
    int n = samples;
    if (n < MIN_SAMPLES) {
      samples = n + 1; // counted only as far as it matters: no write per answer after that
    }
    if (n == 0) {
      estimate = nanos;
    } else if (nanos > e) {
      estimate = Math.min(nanos, e * (1 + STEP * q));
    } else if (nanos < e) {
      estimate = Math.max(nanos, e * (1 - STEP * (1 - q)));
    }
  }

  /** The estimate, or 0 while there are fewer than {@link #MIN_SAMPLES} samples. */
  public long nanos() {
    return samples < MIN_SAMPLES ? 0 : (long) estimate;
  }
}
