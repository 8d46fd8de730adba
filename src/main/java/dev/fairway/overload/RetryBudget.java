package dev.fairway.overload;

/**
 * How many retries a service may add to its backends' load (Finagle's {@code RetryBudget},
 * Envoy's retry budget): over a sliding window, retries may be at most {@code percent} % of the
 * requests plus a reserve of {@code minPerSecond} a second, so a quiet service can still retry and
 * a failing one cannot multiply its load.
 *
 * <p>Example: {@code new RetryBudget(10, 0.5, 10 s)}: the reserve is 0.5 × 10 = 5 retries. After
 * 20 requests, {@code available} is {@code 5 + 10 % × 20 = 7}; seven {@code tryRetry} calls
 * succeed and the eighth fails. A retry withdrawn 10 s ago has left the window and can be made
 * again, and so can the retries its requests paid for only while those are in the window.
 *
 * <p>Each request deposits once, its retries do not: call {@link #request} once per client
 * request. Time comes in as {@code nowNanos}; the window moves in twentieths. Single-threaded: the
 * proxy keeps one per event loop and service and gives each its share of {@code minPerSecond}.
 */
public final class RetryBudget {
  /** The window of Finagle's and Envoy's budgets: 10 s. */
  public static final long WINDOW_NANOS = 10_000_000_000L;
  private static final int REQUESTS = 0;
  private static final int RETRIES = 1;

  private final double percent;
  private final double reserve;
  private final SlidingCounts counts;

  /**
   * @param percent      retries allowed per 100 requests in the window; 0 or more
   * @param minPerSecond retries allowed a second whatever the requests; 0 or more
   * @param windowNanos  how far back requests and retries are counted
   */
  public RetryBudget(double percent, double minPerSecond, long windowNanos) {
    if (!(percent >= 0) || !(minPerSecond >= 0) || Double.isInfinite(percent) || Double.isInfinite(minPerSecond)) {
      throw new IllegalArgumentException("percent and minPerSecond must be finite and not negative: " + percent
          + ", " + minPerSecond);
    }
    this.percent = percent;
    this.reserve = minPerSecond * windowNanos / 1e9;
    this.counts = new SlidingCounts(windowNanos, AdaptiveThrottle.BUCKETS, 2);
  }

  /** Counts a client request (a deposit of {@code percent / 100} retries). */
  public void request(long nowNanos) {
    counts.add(REQUESTS, nowNanos, 1);
  }

  /** Withdraws one retry if the budget holds one; false (and nothing withdrawn) if not. */
  public boolean tryRetry(long nowNanos) {
    if (available(nowNanos) < 1) {
      return false;
    }
    counts.add(RETRIES, nowNanos, 1);
    return true;
  }

  /** Retries the budget holds now: {@code reserve + percent / 100 × requests - retries} over the window. */
  public double available(long nowNanos) {
    return reserve + percent * counts.total(REQUESTS, nowNanos) / 100 - counts.total(RETRIES, nowNanos);
  }
}
