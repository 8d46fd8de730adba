package dev.fairway.balancer;

import java.util.List;

/**
 * Least-loaded round robin (seed 001): round robin among the members with the fewest active
 * requests, where recent errors count as active requests.
 *
 * <p>Example (the book's): t0..t9 with active requests {@code 2 1 0 0 1 0 2 0 0 1} pick
 * {@code t2 t3 t5 t7 t8}, after which the table reads {@code 2 1 1 1 1 1 2 1 1 1}; when t4's
 * request then finishes, t4 is the only member with 0 and gets the next request.
 *
 * <p>The load of a member is {@code active + round(errors)}. A failed completion adds 1 to the
 * member's error count, which decays exponentially with time constant {@code errorWindow}
 * (default 10 s): one error counts as one active request for {@code errorWindow × ln 2} (6.9 s
 * by default), then as none; twenty recent errors count as twenty. So a backend that fails fast
 * and would otherwise always look idle cannot sinkhole traffic: it only gets a request when its
 * active requests plus recent errors are as few as everybody else's. An error window of 0 turns
 * error counting off.
 *
 * <p>Round robin: among the members of least load that {@link Endpoint#canTake() can take} a
 * request, the first at or after the one following the previous pick wins.
 *
 * <p>The error counts are the service's, for the whole process: every event loop's instance (and
 * the one serving queued requests) reads and adds to the same {@link Signals}, so four event loops
 * that each saw one failure of a member all count four.
 *
 * <p>Cost: a pick scans the members: one read of each endpoint's active count and limit and of
 * its error count, and one {@code Math.exp} for the whole pick (counts are kept relative to a
 * shared reference time, moved forward every 30 time constants); it stops early at a member with
 * load 0.
 */
public final class LeastLoaded implements Strategy {
  /** Default time constant of the error decay: 10 s. */
  public static final long DEFAULT_ERROR_WINDOW_NANOS = 10_000_000_000L;

  /** Rebase the shared decay reference once it is this many time constants old. */
  private static final double REBASE_AFTER = 30;

  /**
   * A member's recent errors: {@code scaled} relative to the reference time {@code ref}, so that
   * the count now is {@code scaled × exp(−(now − ref) / window)}. Thread-safe: writes are
   * synchronized; a read racing one may pair the new count with the old reference for an instant,
   * which only matters across a rebase and errs by one decay step.
   */
  static final class Errors {
    private volatile double scaled;
    private volatile long ref;

    /** One more error at {@code now}, kept relative to {@code newRef}. */
    synchronized void add(long nowNanos, long newRef, double windowNanos) {
      double later = at(nowNanos, windowNanos) + 1;
      ref = newRef;
      scaled = later * Math.exp((nowNanos - newRef) / windowNanos);
    }

    double at(long nowNanos, double windowNanos) {
      double sc = scaled;
      return sc == 0 ? 0 : sc * Math.exp(-(nowNanos - ref) / windowNanos);
    }

    /** The count now, {@code f} being the decay from {@code pickRef} to now: one multiplication if that is this count's reference. */
    double at(long nowNanos, double windowNanos, long pickRef, double f) {
      double sc = scaled;
      if (sc == 0) {
        return 0;
      }
      long r = ref;
      return r == pickRef ? sc * f : sc * Math.exp(-(nowNanos - r) / windowNanos);
    }
  }

  /**
   * One service's error counts and the reference time they decay from, shared by its instances,
   * so that a pick computes the decay once rather than once per member.
   */
  public static final class Shared {
    final Signals<Errors> errors = new Signals<>(Errors::new);
    private volatile long ref;
    private volatile boolean started;

    /** The reference time at {@code now}; moved to now once too old (counts kept from before then take the slow path). */
    long ref(long nowNanos, double windowNanos) {
      if (!started || (nowNanos - ref) / windowNanos > REBASE_AFTER) {
        ref = nowNanos;
        started = true;
      }
      return ref;
    }
  }

  private final double windowNanos;
  private final Shared shared;
  private final MemberStates<Errors> states;
  private int next;
  /** The least load found by the pick in progress. */
  private long bestLoad;

  public LeastLoaded() {
    this(DEFAULT_ERROR_WINDOW_NANOS);
  }

  /** @param errorWindowNanos time constant of the error decay; 0 ignores errors */
  public LeastLoaded(long errorWindowNanos) {
    this(errorWindowNanos, new Shared());
  }

  /**
   * @param errorWindowNanos time constant of the error decay; 0 ignores errors
   * @param shared           the error counts, shared with the service's other instances
   */
  public LeastLoaded(long errorWindowNanos, Shared shared) {
    if (errorWindowNanos < 0) {
      throw new IllegalArgumentException("errorWindowNanos < 0: " + errorWindowNanos);
    }
    this.windowNanos = errorWindowNanos;
    this.shared = shared;
    this.states = new MemberStates<>(shared.errors);
  }

  @Override
  public Endpoint pick(List<Endpoint> members, long nowNanos) {
    int n = members.size();
    if (n == 0) {
      return null;
    }
    Object[] st = states.sync(members);
    Endpoint[] arr = states.endpoints();
    if (next >= n) {
      next = 0;
    }
    // from the cursor to the end, then from the start to the cursor: two plain loops
    bestLoad = Long.MAX_VALUE;
    long ref = windowNanos > 0 ? shared.ref(nowNanos, windowNanos) : 0;
    double f = windowNanos > 0 ? Math.exp(-(nowNanos - ref) / windowNanos) : 0;
    int best = scan(arr, st, nowNanos, ref, f, next, n, -1);
    if (bestLoad != 0) {
      best = scan(arr, st, nowNanos, ref, f, 0, next, best);
    }
    if (best < 0) {
      return null;
    }
    next = best + 1 == n ? 0 : best + 1;
    return arr[best];
  }

  /**
   * The member of least load in {@code [from, to)} if less than {@link #bestLoad}, else
   * {@code best}; lowers {@link #bestLoad} accordingly and stops at a load of 0.
   */
  private int scan(Endpoint[] arr, Object[] st, long nowNanos, long ref, double f, int from, int to, int best) {
    long least = bestLoad;
    boolean counting = windowNanos > 0;
    for (int i = from; i < to; i++) {
      long load = arr[i].activeIfTakeable();
      if (load < 0) {
        continue;
      }
      if (counting) {
        load += (long) (((Errors) st[i]).at(nowNanos, windowNanos, ref, f) + 0.5);
      }
      load = arr[i].rampedLoad(load);
      if (load < least) {
        least = load;
        best = i;
        if (load == 0) {
          break; // nothing after it can be less
        }
      }
    }
    bestLoad = least;
    return best;
  }

  @Override
  public void onComplete(Endpoint endpoint, long latencyNanos, boolean failed, long nowNanos) {
    if (failed && windowNanos > 0) {
      states.get(endpoint).add(nowNanos, shared.ref(nowNanos, windowNanos), windowNanos);
    }
  }

  @Override
  public void reset(List<Endpoint> members) {
    states.sync(members);
  }

  /** The recent-error count of a member now (for tests and the admin view). */
  public double errors(Endpoint endpoint, long nowNanos) {
    return windowNanos == 0 ? 0.0 : states.get(endpoint).at(nowNanos, windowNanos);
  }
}
