package dev.fairway.overload;

/**
 * Client-side adaptive throttling of one service (the SRE book, "Handling Overload"): Fairway
 * refuses locally the share of requests its backends would refuse anyway, without a round trip.
 *
 * <p>Example: {@code k} 2, a window that holds 99 requests, 61 of them sent on and 30 of those
 * accepted: the next request is refused with probability
 * {@code p = max(0, (99 - 2 * 30) / (99 + 1)) = 0.39}. The refused share is taken from the least
 * critical requests first, by each class's share of the window's requests with the newcomer's: if
 * 59 of the 99 were {@code sheddable} and the newcomer is one too, sheddable requests make 0.6 of
 * the 100 and each is refused with probability {@code 0.39 / 0.6 = 0.65}, while {@code critical}
 * ones pass. Were {@code p} 0.8, sheddable ones would always be refused and a critical newcomer,
 * whose class makes 0.4 of the 100, would take the remaining 0.2: refused with probability 0.5.
 * {@code critical-plus} is refused last.
 *
 * <p>Counting follows the book: {@code requests} is every request the service was asked for,
 * those refused here included; {@code accepts} every answer that was not an overload signal. In
 * steady overload the backends then see about {@code k} times what they accept.
 *
 * <p>One departure, for recovery: with the book's counts, a backend that failed for longer than
 * the window is sent about one request per window, and once healed it earns back traffic only
 * about fivefold per window ({@code k} 2): at 100 requests a second it takes 3 to 7 windows of
 * 10 s, or 5 to 9 windows of the default two minutes (10 to 17 minutes), to let everything
 * through again. The requests refused here say nothing about the
 * backends, only about this throttle's belief, so their weight follows what the backends say
 * about the requests that reached them: refused requests count in full while at least
 * {@code (k - 1) / k} of the window's attempts were not accepted (the share the book's formula
 * itself settles at, so its steady state is kept), less in proportion as more attempts are
 * accepted, and not at all once every attempt was. A window without attempts therefore lets the
 * next request through (a probe), and a healed backend gets all traffic back within a window.
 *
 * <p>Time comes in as {@code nowNanos}, randomness as {@code random01}. Single-threaded: the
 * proxy keeps one per event loop and service.
 */
public final class AdaptiveThrottle {
  /** How many buckets the window is cut into: requests leave it in twentieths. */
  static final int BUCKETS = 20;
  private static final int CLASSES = Criticality.ALL.length;
  private static final int ATTEMPTS = CLASSES;
  private static final int ACCEPTS = CLASSES + 1;

  private final double k;
  private final boolean weighRefused;
  private final int minRequests;
  private final SlidingCounts counts;

  /**
   * @param k           how many requests per accept the backends may be sent; above 1
   * @param windowNanos how far back requests and accepts are counted
   */
  public AdaptiveThrottle(double k, long windowNanos) {
    this(k, windowNanos, 0);
  }

  /**
   * @param minRequests fewer requests than this in the window never throttle (too little evidence:
   *                    after one overload answer the formula alone refuses half of what follows)
   */
  public AdaptiveThrottle(double k, long windowNanos, int minRequests) {
    this(k, windowNanos, true, minRequests);
  }

  private AdaptiveThrottle(double k, long windowNanos, boolean weighRefused, int minRequests) {
    if (!(k > 1) || Double.isInfinite(k)) {
      throw new IllegalArgumentException("k must be a number above 1: " + k);
    }
    this.k = k;
    this.weighRefused = weighRefused;
    this.minRequests = minRequests;
    this.counts = new SlidingCounts(windowNanos, BUCKETS, CLASSES + 2);
  }

  /** The book's formula without the recovery weighting, to measure what the weighting changes. */
  static AdaptiveThrottle bookFormula(double k, long windowNanos) {
    return new AdaptiveThrottle(k, windowNanos, false, 0);
  }

  /**
   * Counts a request of class {@code c} and decides whether it may be sent to a backend: a request
   * whose answer is known at once ({@link #decide} and {@link #count} in one).
   *
   * @param random01 a uniform random number in [0, 1)
   * @return false if it is refused here
   */
  public boolean admit(Criticality c, long nowNanos, double random01) {
    boolean admitted = decide(c, nowNanos, random01);
    count(c, nowNanos, admitted);
    return admitted;
  }

  /**
   * Decides whether a request of class {@code c} may be sent to a backend, without counting it.
   * A proxy counts a request it sends ({@link #count}) when its answer comes, with
   * {@link #accepted} if it was accepted: requests still in flight are then in neither count, so a
   * burst after a quiet spell is not refused for answers that have not come yet (counted at once,
   * the second of two concurrent first requests would be refused with probability 1/2).
   *
   * @param random01 a uniform random number in [0, 1)
   * @return false if it is refused here; count it then with {@code count(c, now, false)}
   */
  public boolean decide(Criticality c, long nowNanos, double random01) {
    return random01 >= rejectProbability(c, nowNanos);
  }

  /** Counts a request of class {@code c}, sent to a backend ({@code attempted}) or refused here. */
  public void count(Criticality c, long nowNanos, boolean attempted) {
    counts.add(c.rank(), nowNanos, 1);
    if (attempted) {
      counts.add(ATTEMPTS, nowNanos, 1);
    }
  }

  /** Counts an answer that was not an overload signal. */
  public void accepted(long nowNanos) {
    counts.add(ACCEPTS, nowNanos, 1);
  }

  /** Requests counted in the window, refused ones included. */
  public long requests(long nowNanos) {
    long sum = 0;
    for (int c = 0; c < CLASSES; c++) {
      sum += counts.total(c, nowNanos);
    }
    return sum;
  }

  /** Requests admitted in the window (sent to, or meant for, a backend). */
  public long attempts(long nowNanos) {
    return counts.total(ATTEMPTS, nowNanos);
  }

  /** Answers in the window that were not an overload signal. */
  public long accepts(long nowNanos) {
    return counts.total(ACCEPTS, nowNanos);
  }

  /** The share of all requests that is refused now: {@code max(0, (requests - k * accepts) / (requests + 1))}. */
  public double rejectProbability(long nowNanos) {
    long requests = requests(nowNanos);
    if (requests < minRequests) {
      return 0;
    }
    long attempts = attempts(nowNanos);
    long accepts = accepts(nowNanos);
    double counted = weighRefused ? attempts + refusedWeight(attempts, accepts) * (requests - attempts) : requests;
    return Math.max(0, (counted - k * accepts) / (counted + 1));
  }

  /** The probability that the next request of class {@code c} is refused, lower classes first. */
  public double rejectProbability(Criticality c, long nowNanos) {
    double remaining = rejectProbability(nowNanos);
    if (remaining == 0) {
      return 0;
    }
    double all = requests(nowNanos) + 1;
    for (int rank = CLASSES - 1; rank >= 0; rank--) {
      boolean own = rank == c.rank();
      double share = (counts.total(rank, nowNanos) + (own ? 1 : 0)) / all;
      if (own) {
        return Math.min(1, remaining / share);
      }
      remaining -= share;
      if (remaining <= 0) {
        return 0;
      }
    }
    throw new AssertionError("no rank " + c.rank());
  }

  private double refusedWeight(long attempts, long accepts) {
    if (attempts == 0) {
      return 0;
    }
    double notAccepted = Math.max(0, 1 - (double) accepts / attempts);
    return Math.min(1, notAccepted * k / (k - 1));
  }
}
