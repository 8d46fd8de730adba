package dev.fairway.balancer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;

/**
 * Fair share (seed 004, poolifier's default): the request goes to the member whose request would
 * end first on the service's clock, {@code max(clock, predictedEnd) + latency}, where
 * {@code latency} is the simple moving average (or, optionally, the simple moving median) of the
 * member's last N service times.
 *
 * <p>Example: W1 with a moving average of 1 ms and W2 of 3 ms pick
 * {@code W1 W1 W2 W1 W1 W1 W2}: W1's predicted end moves to 1, 2, 3, 4, 5 ms and W2's to 3, 6 ms;
 * equal predictions go to the member after the previous pick (round robin among ties). Each member
 * gets work in inverse proportion to its latency, so a backend twice as slow gets half the
 * requests and every backend is about equally busy, at any load.
 *
 * <p>The clock is the service's, not the wall's: it is where the latest pick's request was
 * predicted to start, and each pick moves the chosen member's predicted end to
 * {@code max(clock − horizon, predictedEnd) + latency}. A member that fell behind (it was full,
 * unhealthy, or just slower than predicted) catches up by at most the horizon, {@code N} times the
 * service's latency, so a returning backend gets a short burst, not a flood. (With the wall clock
 * instead, a slow backend only got requests while every fast one was predicted busy for longer
 * than its own latency: at 50 % load it starved, spread 21 in {@code SpreadSimulation}.)
 *
 * <p>A sample is a completion's latency divided by the requests that were in flight on the
 * backend when it was sent, itself included: the service time without the backend's own queueing.
 * A failed completion counts as at least the member's current latency, so failing fast never
 * makes a member look faster. Members that cannot {@link Endpoint#canTake() take} a request are
 * passed over.
 *
 * <p>Initial latency assumption: a member without completions is assumed to take the average
 * (or median) of the service's last N completions on any member, and {@code initialLatency}
 * (default 1 ms) before the service has seen any completion; so a new backend is neither flooded
 * nor starved while its first requests run.
 *
 * <p>Stale samples: a member that got no completion for {@code N} times the service's latency is
 * idle or avoided; its latency then moves toward the service's, halving the distance every such
 * period, so a backend that once looked slow gets requests, and fresh samples, again.
 *
 * <p>The member windows, predicted ends and the clock are the service's, for the whole process
 * ({@link Signals}): every event loop's instance predicts from all of the process's picks and
 * completions. Only the fallback (the average over every member) is each event loop's own: a
 * sample of the same traffic, without a lock that every completion would share.
 *
 * <p>Cost: a pick scans the members, reading each endpoint's active count and limit and the
 * member's predicted end and latency (volatile fields); completions lock the member's window.
 */
public final class FairShare implements Strategy {
  /** Default window of the moving average: the last 16 completions. */
  public static final int DEFAULT_WINDOW = 16;
  /** Default latency assumed before any completion: 1 ms. */
  public static final long DEFAULT_INITIAL_LATENCY_NANOS = 1_000_000L;

  private static final VarHandle PREDICTED_END;

  static {
    try {
      PREDICTED_END = MethodHandles.lookup().findVarHandle(Window.class, "predictedEnd", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** A moving window of latencies with its average or median, and a predicted end; thread-safe. */
  static final class Window {
    private final long[] samples;
    private final long[] scratch;
    private int count;
    private int head;
    private long sum;
    /** Average or median of the window; -1 while empty. */
    volatile long stat = -1;
    /** When the last sample came. */
    volatile long sampledAt;
    volatile long predictedEnd = Long.MIN_VALUE;

    Window(int size) {
      samples = new long[size];
      scratch = new long[size];
    }

    synchronized void add(long sample, boolean median, long nowNanos) {
      if (count == samples.length) {
        sum -= samples[head];
      } else {
        count++;
      }
      samples[head] = sample;
      sum += sample;
      head = head + 1 == samples.length ? 0 : head + 1;
      if (median) {
        System.arraycopy(samples, 0, scratch, 0, count);
        Arrays.sort(scratch, 0, count);
        stat = count % 2 == 1 ? scratch[count / 2] : (scratch[count / 2 - 1] + scratch[count / 2]) / 2;
      } else {
        stat = sum / count;
      }
      sampledAt = nowNanos;
    }

    /** Moves the predicted end to {@code max(clock, end) + latency}; returns the new end. */
    long extend(long clock, long latency) {
      while (true) {
        long pe = predictedEnd;
        long end = Math.max(clock, pe) + latency;
        if (PREDICTED_END.compareAndSet(this, pe, end)) {
          return end;
        }
      }
    }
  }

  /** One service's member windows and clock, shared by its instances. */
  public static final class Shared {
    private static final VarHandle CLOCK;

    static {
      try {
        CLOCK = MethodHandles.lookup().findVarHandle(Shared.class, "clock", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final Signals<Window> members;
    /** The service's clock: where the latest pick's request was predicted to start; never goes back. */
    private volatile long clock;

    /** Moves the clock forward to {@code start}, if later. */
    void advance(long start) {
      long c;
      while (start > (c = clock) && !CLOCK.compareAndSet(this, c, start)) {
        Thread.onSpinWait();
      }
    }

    /** @param window completions remembered per member (N) */
    public Shared(int window) {
      this.members = new Signals<>(() -> new Window(window));
    }
  }

  private final int windowSize;
  private final boolean median;
  private final long initialLatencyNanos;
  /** This instance's window over every member: the fallback latency (per event loop, so no lock is shared). */
  private final Window service;
  private final Shared shared;
  private final MemberStates<Window> states;
  private int next;
  /** The earliest end found by the pick in progress. */
  private long bestEnd;

  public FairShare() {
    this(DEFAULT_WINDOW, false, DEFAULT_INITIAL_LATENCY_NANOS);
  }

  /**
   * @param window              completions remembered per member (N)
   * @param median              use the simple moving median instead of the average
   * @param initialLatencyNanos latency assumed before the service's first completion
   */
  public FairShare(int window, boolean median, long initialLatencyNanos) {
    this(window, median, initialLatencyNanos, new Shared(Math.max(1, window)));
  }

  /** @param shared the windows, shared with the service's other instances (same {@code window}) */
  public FairShare(int window, boolean median, long initialLatencyNanos, Shared shared) {
    if (window < 1 || initialLatencyNanos < 0) {
      throw new IllegalArgumentException("window " + window + ", initialLatencyNanos " + initialLatencyNanos);
    }
    this.windowSize = window;
    this.median = median;
    this.initialLatencyNanos = initialLatencyNanos;
    this.service = new Window(window);
    this.shared = shared;
    this.states = new MemberStates<>(shared.members);
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
    long serviceStat = service.stat;
    long fallback = serviceStat >= 0 ? serviceStat : initialLatencyNanos;
    long clock = shared.clock - windowSize * fallback;
    // from the cursor to the end, then from the start to the cursor: two plain loops
    bestEnd = Long.MAX_VALUE;
    int best = scan(arr, st, nowNanos, clock, fallback, next, n, -1);
    best = scan(arr, st, nowNanos, clock, fallback, 0, next, best);
    if (best < 0) {
      return null;
    }
    Window w = (Window) st[best];
    long latency = ramped(latency(w, nowNanos, fallback), arr[best]);
    shared.advance(w.extend(clock, latency) - latency);
    next = best + 1 == n ? 0 : best + 1;
    return arr[best];
  }

  /** {@code latency} divided by the member's slow-start ramp: at 10 % it looks 10 times as slow. */
  private static long ramped(long latency, Endpoint e) {
    double r = e.ramp();
    return r >= 1.0 ? latency : (long) (latency / r);
  }

  /**
   * The member in {@code [from, to)} whose request would end first if before {@link #bestEnd},
   * else {@code best}; lowers {@link #bestEnd} accordingly.
   */
  private int scan(Endpoint[] arr, Object[] st, long nowNanos, long since, long fallback, int from, int to, int best) {
    long earliest = bestEnd;
    for (int i = from; i < to; i++) {
      if (!arr[i].canTake()) {
        continue;
      }
      Window w = (Window) st[i];
      long end = Math.max(since, w.predictedEnd) + ramped(latency(w, nowNanos, fallback), arr[i]);
      if (end < earliest) {
        earliest = end;
        best = i;
      }
    }
    bestEnd = earliest;
    return best;
  }

  /**
   * The latency a member is assumed to take now: its window's, moving toward {@code fallback}
   * (the service's) once its samples are older than {@code window × fallback}.
   */
  private long latency(Window w, long nowNanos, long fallback) {
    long stat = w.stat;
    if (stat < 0) {
      return fallback;
    }
    long period = windowSize * Math.max(fallback, 1);
    long age = nowNanos - w.sampledAt - period;
    if (age <= 0 || stat == fallback) {
      return stat;
    }
    double keep = Math.pow(0.5, (double) age / period);
    return fallback + (long) ((stat - fallback) * keep);
  }

  @Override
  public void onComplete(Endpoint endpoint, long latencyNanos, boolean failed, long nowNanos) {
    onComplete(endpoint, latencyNanos, 1, failed, nowNanos);
  }

  @Override
  public void onComplete(Endpoint endpoint, long latencyNanos, int inFlight, boolean failed, long nowNanos) {
    Window w = states.get(endpoint);
    long sample = Math.max(0, latencyNanos) / Math.max(1, inFlight);
    if (failed) {
      long own = w.stat;
      long svc = service.stat;
      long current = own >= 0 ? own : svc >= 0 ? svc : initialLatencyNanos;
      sample = Math.max(sample, current);
    }
    w.add(sample, median, nowNanos);
    service.add(sample, median, nowNanos);
  }

  @Override
  public void reset(List<Endpoint> members) {
    states.sync(members);
  }

  /** The latency a member is currently assumed to take, in nanoseconds (tests, admin view). */
  public long latencyNanos(Endpoint endpoint, long nowNanos) {
    long svc = service.stat;
    return latency(states.get(endpoint), nowNanos, svc >= 0 ? svc : initialLatencyNanos);
  }
}
