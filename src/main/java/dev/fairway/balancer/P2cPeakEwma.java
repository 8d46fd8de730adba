package dev.fairway.balancer;

import java.util.List;

/**
 * Power of two choices over a peak-sensitive EWMA of latency (Finagle's and Linkerd's
 * {@code p2c} + {@code peakEwma}): draw two distinct members at random, send the request to the
 * one with the lower {@code latency × (active + 1)}.
 *
 * <p>Example: W1 with an estimate of 1 ms and W2 of 3 ms, both idle, with no request finishing,
 * pick {@code W1 W1 W1 W2 W1 W1 W1 W2}: the costs go W1 1, 2, 3, 4, 5, 6, 7 ms against W2 3, 6 ms
 * and a tie goes to the member listed first. With only two takeable members the draw cannot
 * matter; with more, it comes from a {@link SplitMix64} seeded by the caller, so a seed gives one
 * sequence on every JVM.
 *
 * <p>The draw: {@code i = nextInt(n)}, {@code j = nextInt(n − 1)}, plus one if {@code j ≥ i},
 * over all {@code n} members; if either cannot {@link Endpoint#canTake() take} a request, the same
 * draw is made again over the list of the {@code k} members that can (none: {@code null}; one:
 * that one).
 *
 * <p>The estimate {@code E} of a member, last updated at {@code T}, with {@code w = exp(−(now −
 * T) / decay)} (decay default 10 s):
 * <ul>
 *   <li>read at a pick, it is {@code E × w}: with no new samples it decays toward zero, so a member
 *       that looked slow (or failed) is tried again after a while;</li>
 *   <li>a sample {@code s} above {@code E × w} replaces it at once (peak sensitivity); a lower one
 *       is blended in: {@code E = E × w + s × (1 − w)}; then {@code T = now}.</li>
 * </ul>
 * A failed completion counts as a sample of {@code max(latency, errorPenalty)} (default 1 s), so a
 * backend that fails fast looks slow rather than fast. A member without samples is assumed to
 * take {@code initialLatency} (default 1 ms).
 *
 * <p>The estimates are the service's, for the whole process ({@link Signals}): every event loop's
 * instance, each with a random sequence of its own, reads and feeds the same ones.
 */
public final class P2cPeakEwma implements Strategy {
  /** Default decay time constant: 10 s. */
  public static final long DEFAULT_DECAY_NANOS = 10_000_000_000L;
  /** Default latency sample recorded for a failed request: 1 s. */
  public static final long DEFAULT_ERROR_PENALTY_NANOS = 1_000_000_000L;
  /** Default latency assumed for a member without samples: 1 ms. */
  public static final long DEFAULT_INITIAL_LATENCY_NANOS = 1_000_000L;

  /** A member's latency estimate; thread-safe. */
  static final class Estimate {
    /** The estimate at {@link #stamp}; -1 before the first sample. */
    private volatile double nanos = -1;
    private volatile long stamp;

    synchronized void add(double sample, long nowNanos, double decayNanos) {
      double e = nanos;
      if (e < 0) {
        nanos = sample;
      } else {
        double w = weight(stamp, nowNanos, decayNanos);
        double decayed = e * w;
        nanos = sample > decayed ? sample : decayed + sample * (1 - w);
      }
      stamp = nowNanos;
    }

    /** The estimate now, or {@code fallback} without samples. */
    double at(long nowNanos, double decayNanos, double fallback) {
      long t = stamp;
      double e = nanos;
      return e < 0 ? fallback : e * weight(t, nowNanos, decayNanos);
    }
  }

  private final SplitMix64 random;
  private final double decayNanos;
  private final long errorPenaltyNanos;
  private final long initialLatencyNanos;
  private final MemberStates<Estimate> states;
  private int[] takeable = new int[0];

  public P2cPeakEwma(long seed) {
    this(seed, DEFAULT_DECAY_NANOS, DEFAULT_ERROR_PENALTY_NANOS, DEFAULT_INITIAL_LATENCY_NANOS);
  }

  public P2cPeakEwma(long seed, long decayNanos, long errorPenaltyNanos, long initialLatencyNanos) {
    this(seed, decayNanos, errorPenaltyNanos, initialLatencyNanos, signals());
  }

  /** @param signals the estimates, shared with the service's other instances */
  public P2cPeakEwma(long seed, long decayNanos, long errorPenaltyNanos, long initialLatencyNanos,
                     Signals<Estimate> signals) {
    if (decayNanos <= 0 || errorPenaltyNanos < 0 || initialLatencyNanos < 0) {
      throw new IllegalArgumentException("decay " + decayNanos + ", errorPenalty " + errorPenaltyNanos
          + ", initialLatency " + initialLatencyNanos);
    }
    this.random = new SplitMix64(seed);
    this.decayNanos = decayNanos;
    this.errorPenaltyNanos = errorPenaltyNanos;
    this.initialLatencyNanos = initialLatencyNanos;
    this.states = new MemberStates<>(signals);
  }

  /** A fresh store of latency estimates, to share among one service's instances. */
  public static Signals<Estimate> signals() {
    return new Signals<>(Estimate::new);
  }

  @Override
  public Endpoint pick(List<Endpoint> members, long nowNanos) {
    int n = members.size();
    if (n == 0) {
      return null;
    }
    Object[] st = states.sync(members);
    int a;
    int b;
    if (n == 1) {
      return members.get(0).canTake() ? members.get(0) : null;
    }
    a = random.nextInt(n);
    b = random.nextInt(n - 1);
    if (b >= a) {
      b++;
    }
    if (!members.get(a).canTake() || !members.get(b).canTake()) {
      if (takeable.length < n) {
        takeable = new int[n];
      }
      int k = 0;
      for (int i = 0; i < n; i++) {
        if (members.get(i).canTake()) {
          takeable[k++] = i;
        }
      }
      if (k == 0) {
        return null;
      }
      if (k == 1) {
        return members.get(takeable[0]);
      }
      int x = random.nextInt(k);
      int y = random.nextInt(k - 1);
      if (y >= x) {
        y++;
      }
      a = takeable[x];
      b = takeable[y];
    }
    double costA = cost((Estimate) st[a], members.get(a), nowNanos);
    double costB = cost((Estimate) st[b], members.get(b), nowNanos);
    int pick = costA < costB || (costA == costB && a < b) ? a : b;
    return members.get(pick);
  }

  @Override
  public void onComplete(Endpoint endpoint, long latencyNanos, boolean failed, long nowNanos) {
    double sample = Math.max(0, failed ? Math.max(latencyNanos, errorPenaltyNanos) : latencyNanos);
    states.get(endpoint).add(sample, nowNanos, decayNanos);
  }

  @Override
  public void reset(List<Endpoint> members) {
    states.sync(members);
  }

  /** A member's latency estimate now, in nanoseconds (tests, admin view). */
  public double latencyNanos(Endpoint endpoint, long nowNanos) {
    return states.get(endpoint).at(nowNanos, decayNanos, initialLatencyNanos);
  }

  /** Estimate × (active + 1), divided by the slow-start ramp: at 10 % a member looks 10 times as slow. */
  private double cost(Estimate est, Endpoint e, long nowNanos) {
    double c = est.at(nowNanos, decayNanos, initialLatencyNanos) * (e.active() + 1);
    double r = e.ramp();
    return r >= 1.0 ? c : c / r;
  }

  private static double weight(long stamp, long nowNanos, double decayNanos) {
    long dt = nowNanos - stamp;
    return dt <= 0 ? 1.0 : Math.exp(-dt / decayNanos);
  }
}
