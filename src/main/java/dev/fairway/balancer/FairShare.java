package dev.fairway.balancer;

import java.util.Arrays;
import java.util.List;

/**
 * Fair share (seed 004, poolifier's default): the request goes to the member whose request would
 * end first, {@code max(now, predictedEnd) + latency}, where {@code latency} is the simple moving
 * average (or, optionally, the simple moving median) of the member's last N completions.
 *
 * <p>Example: W1 with a moving average of 1 ms and W2 of 3 ms, both idle at time 0, pick
 * {@code W1 W1 W2 W1 W1 W1 W2}: W1's predicted end moves to 1, 2, 3, 4, 5 ms and W2's to 3, 6 ms;
 * equal predictions go to the member after the previous pick (round robin among ties).
 *
 * <p>Each pick moves the chosen member's predicted end to {@code max(now, predictedEnd) +
 * latency}. Each completion adds a sample to the member's window; a failed completion is counted
 * as at least the member's current latency, so failing fast never makes a member look faster. A
 * completion that leaves a member with no active request pulls its predicted end back to now: it
 * is idle, whatever was predicted. Members that cannot {@link Endpoint#canTake() take} a request
 * are passed over.
 *
 * <p>Initial latency assumption: a member without completions is assumed to take the average
 * (or median) of the service's last N completions on any member, and {@code initialLatency}
 * (default 1 ms) before the service has seen any completion; so a new backend is neither flooded
 * nor starved while its first requests run.
 *
 * <p>Cost: a pick scans the members, reading each endpoint's active count and limit and the
 * member's predicted end and latency from primitive arrays parallel to the members (a member
 * listed twice, which the slot table never does, mirrors its last position).
 */
public final class FairShare implements Strategy {
  /** Default window of the moving average: the last 16 completions. */
  public static final int DEFAULT_WINDOW = 16;
  /** Default latency assumed before any completion: 1 ms. */
  public static final long DEFAULT_INITIAL_LATENCY_NANOS = 1_000_000L;

  /** A moving window of latencies with its average or median. */
  private static final class Window {
    final long[] samples;
    final long[] scratch;
    int count;
    int head;
    long sum;
    /** Average or median of the window; -1 while empty. */
    long stat = -1;
    long predictedEnd = Long.MIN_VALUE;
    /** Position in the member list of the last sync (the last one for a member listed twice). */
    int index = -1;

    Window(int size) {
      samples = new long[size];
      scratch = new long[size];
    }

    void add(long sample, boolean median) {
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
    }
  }

  private final int windowSize;
  private final boolean median;
  private final long initialLatencyNanos;
  private final Window service;
  private final MemberStates<Window> states;
  /** The states of the last sync; their predicted ends and latencies mirrored by member index. */
  private Object[] synced;
  private long[] ends = new long[0];
  /** A member's latency, or -1 while it has none (the fallback applies). */
  private long[] latencies = new long[0];
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
    if (window < 1 || initialLatencyNanos < 0) {
      throw new IllegalArgumentException("window " + window + ", initialLatencyNanos " + initialLatencyNanos);
    }
    this.windowSize = window;
    this.median = median;
    this.initialLatencyNanos = initialLatencyNanos;
    this.service = new Window(window);
    this.states = new MemberStates<>(() -> new Window(windowSize));
  }

  @Override
  public Endpoint pick(List<Endpoint> members, long nowNanos) {
    int n = members.size();
    if (n == 0) {
      return null;
    }
    sync(members);
    Endpoint[] arr = states.endpoints();
    if (next >= n) {
      next = 0;
    }
    long fallback = service.stat >= 0 ? service.stat : initialLatencyNanos;
    // from the cursor to the end, then from the start to the cursor: two plain loops
    bestEnd = Long.MAX_VALUE;
    int best = scan(arr, nowNanos, fallback, next, n, -1);
    best = scan(arr, nowNanos, fallback, 0, next, best);
    if (best < 0) {
      return null;
    }
    ((Window) synced[best]).predictedEnd = bestEnd;
    ends[best] = bestEnd;
    next = best + 1 == n ? 0 : best + 1;
    return arr[best];
  }

  /**
   * The member in {@code [from, to)} whose request would end first if before {@link #bestEnd},
   * else {@code best}; lowers {@link #bestEnd} accordingly.
   */
  private int scan(Endpoint[] arr, long nowNanos, long fallback, int from, int to, int best) {
    long[] pe = ends;
    long[] lat = latencies;
    long earliest = bestEnd;
    for (int i = from; i < to; i++) {
      if (!arr[i].canTake()) {
        continue;
      }
      long l = lat[i];
      long end = Math.max(nowNanos, pe[i]) + (l >= 0 ? l : fallback);
      if (end < earliest) {
        earliest = end;
        best = i;
      }
    }
    bestEnd = earliest;
    return best;
  }

  @Override
  public void onComplete(Endpoint endpoint, long latencyNanos, boolean failed, long nowNanos) {
    Window w = states.get(endpoint);
    if (w == null) {
      return;
    }
    long sample = Math.max(0, latencyNanos);
    if (failed) {
      long current = w.stat >= 0 ? w.stat : service.stat >= 0 ? service.stat : initialLatencyNanos;
      sample = Math.max(sample, current);
    }
    w.add(sample, median);
    service.add(sample, median);
    if (endpoint.active() == 0 && w.predictedEnd > nowNanos) {
      w.predictedEnd = nowNanos;
    }
    int i = w.index;
    if (i >= 0 && i < ends.length) {
      ends[i] = w.predictedEnd;
      latencies[i] = w.stat;
    }
  }

  @Override
  public void reset(List<Endpoint> members) {
    sync(members);
  }

  /** Syncs the states and, when they were rebuilt, their mirror in {@link #ends} and {@link #latencies}. */
  private void sync(List<Endpoint> members) {
    Object[] st = states.sync(members);
    if (st != synced) {
      synced = st;
      ends = new long[st.length];
      latencies = new long[st.length];
      for (int i = 0; i < st.length; i++) {
        Window w = (Window) st[i];
        w.index = i;
        ends[i] = w.predictedEnd;
        latencies[i] = w.stat;
      }
    }
  }

  /** The latency a member is currently assumed to take, in nanoseconds (tests, admin view). */
  public long latencyNanos(Endpoint endpoint) {
    Window w = states.get(endpoint);
    long fallback = service.stat >= 0 ? service.stat : initialLatencyNanos;
    return w == null || w.stat < 0 ? fallback : w.stat;
  }
}
