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
 * <p>Cost: a pick scans the members without a branch per error count: one read of each
 * endpoint's active count and limit, and the error counts from a primitive array parallel to the
 * members (a member listed twice, which the slot table never does, mirrors its last position),
 * the decay being computed once per pick; it stops early at a member with load 0.
 */
public final class LeastLoaded implements Strategy {
  /** Default time constant of the error decay: 10 s. */
  public static final long DEFAULT_ERROR_WINDOW_NANOS = 10_000_000_000L;
  /** Rebase the shared decay reference once it is this many time constants old. */
  private static final double REBASE_AFTER = 30;

  private static final class Errors {
    /** The error count at time {@code ref}, scaled so that now it is {@code scaled × f(now)}. */
    double scaled;
    /** Position in the member list of the last sync (the last one for a member listed twice). */
    int index = -1;
  }

  private final double windowNanos;
  private final MemberStates<Errors> states = new MemberStates<>(Errors::new);
  /** The states of the last sync, and their {@code scaled} mirrored by member index. */
  private Object[] synced;
  private double[] scaled = new double[0];
  private int next;
  /** The least load found by the pick in progress. */
  private long bestLoad;
  private boolean anyErrors;
  private long ref;

  public LeastLoaded() {
    this(DEFAULT_ERROR_WINDOW_NANOS);
  }

  /** @param errorWindowNanos time constant of the error decay; 0 ignores errors */
  public LeastLoaded(long errorWindowNanos) {
    if (errorWindowNanos < 0) {
      throw new IllegalArgumentException("errorWindowNanos < 0: " + errorWindowNanos);
    }
    this.windowNanos = errorWindowNanos;
  }

  @Override
  public Endpoint pick(List<Endpoint> members, long nowNanos) {
    int n = members.size();
    if (n == 0) {
      return null;
    }
    sync(members);
    Endpoint[] arr = states.endpoints();
    double[] sc = scaled;
    if (next >= n) {
      next = 0;
    }
    double f = anyErrors ? decay(nowNanos) : 0.0;
    // from the cursor to the end, then from the start to the cursor: two plain loops
    bestLoad = Long.MAX_VALUE;
    int best = scan(arr, sc, f, next, n, -1);
    if (bestLoad != 0) {
      best = scan(arr, sc, f, 0, next, best);
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
  private int scan(Endpoint[] arr, double[] sc, double f, int from, int to, int best) {
    long least = bestLoad;
    for (int i = from; i < to; i++) {
      long active = arr[i].activeIfTakeable();
      if (active < 0) {
        continue;
      }
      long load = active + (long) (sc[i] * f + 0.5); // no branch: f or the count is 0 without errors
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
    if (!failed || windowNanos == 0) {
      return;
    }
    Errors errors = states.get(endpoint);
    if (errors == null) {
      return;
    }
    if (!anyErrors) {
      ref = nowNanos;
      anyErrors = true;
    } else if ((nowNanos - ref) / windowNanos > REBASE_AFTER) {
      double f = decay(nowNanos);
      for (Errors x : states.all()) {
        x.scaled *= f;
      }
      ref = nowNanos;
      mirror(synced);
    }
    errors.scaled += 1.0 / decay(nowNanos);
    int i = errors.index;
    if (i >= 0 && i < scaled.length) {
      scaled[i] = errors.scaled;
    }
  }

  @Override
  public void reset(List<Endpoint> members) {
    sync(members);
  }

  private void sync(List<Endpoint> members) {
    Object[] st = states.sync(members);
    if (st != synced) {
      mirror(st);
    }
  }

  /** Copies every member's error count into {@link #scaled}, by member index. */
  private void mirror(Object[] st) {
    synced = st;
    double[] next = new double[st.length];
    for (int i = 0; i < st.length; i++) {
      Errors errors = (Errors) st[i];
      errors.index = i;
      next[i] = errors.scaled;
    }
    scaled = next;
  }

  /** The recent-error count of a member now (for tests and the admin view); 0 for non-members. */
  public double errors(Endpoint endpoint, long nowNanos) {
    Errors errors = states.get(endpoint);
    return errors == null || !anyErrors ? 0.0 : errors.scaled * decay(nowNanos);
  }

  /** {@code exp(-(now - ref) / window)}, at most 1. */
  private double decay(long nowNanos) {
    long dt = nowNanos - ref;
    return dt <= 0 ? 1.0 : Math.exp(-dt / windowNanos);
  }
}
