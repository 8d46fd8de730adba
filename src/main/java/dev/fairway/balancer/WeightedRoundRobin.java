package dev.fairway.balancer;

import java.util.List;

/**
 * Weighted round robin (seed 001) with an earliest-deadline-first scheduler: requests are spread
 * in proportion to {@link Endpoint#weight()} (the capability score) and interleaved, without
 * bursts.
 *
 * <p>Example: weights W1=3, W2=4 give {@code W2 W1 W2 W1 W2 W1 W2}, and weights W1=1, W2=2, W3=3
 * give {@code W3 W2 W1 W3 W2 W3} (never three of W3 in a row), both repeating. The turns of a
 * member of weight {@code w} fall at virtual times {@code 0.5/w, 1.5/w, 2.5/w, ...}: W3's at
 * 1/6, 1/2, 5/6, W2's at 1/4, 3/4, W1's at 1/2; each pick takes the earliest turn not yet taken
 * (ties to the member listed first), so W1 and W3 share 1/2 and W1 goes first. These are the
 * sequences of nginx's smooth weighted round robin, at {@code O(log n)} per pick instead of
 * {@code O(n)}.
 *
 * <p>A member that cannot {@link Endpoint#canTake() take} a request when its turn comes loses
 * that turn, so it neither holds the others up nor gets a burst of catch-up picks when it can
 * take again. After {@value #MAX_SKIPS} lost turns in one pick, the pick falls back to a scan for
 * the member that can take with the earliest turn, and returns {@code null} if there is none.
 *
 * <p>A weight that is not a finite positive number is not usable and stands for the mean of the
 * members' usable weights. With fewer than two distinct usable weights among the members the
 * strategy is plain {@link RoundRobin round robin}; when weights differ again the turns start
 * from zero. Weight changes take effect on the next pick: a pick reads the members'
 * {@link WeightEpoch weight epoch} and, only when it moved, compares the members'
 * weights with those it scheduled by; a member whose weight changed keeps its place, its time to
 * its next turn being scaled by old weight / new weight. New members or a {@link #reset} start
 * the turns from zero.
 */
public final class WeightedRoundRobin implements Strategy {
  /** Turns a pick lets members that cannot take lose before it scans for one that can. */
  public static final int MAX_SKIPS = 8;

  private List<Endpoint> members;
  private Endpoint[] arr = new Endpoint[0];
  /** The members' weight epoch, {@code null} for no members. */
  private WeightEpoch weightEpoch;
  /** Its count when {@link #raw} was read. */
  private long epoch;
  /** The members' weights as read, compared bit for bit to spot a change. */
  private double[] raw = new double[0];
  private boolean weighted;
  /** The weights scheduled by: usable weights, the mean standing in for the others. */
  private double[] weight = new double[0];
  /** A member's next turn is at {@code base + (turns + 0.5) / weight}. */
  private double[] base = new double[0];
  private long[] turns = new long[0];
  /** Binary min-heap of the members' next turns: times, and member indexes breaking ties. */
  private double[] heapTime = new double[0];
  private int[] heapMember = new int[0];
  /** The time of the last turn taken or lost. */
  private double clock;
  /** Round robin cursor, also kept while weighted: the member after the last pick. */
  private int next;

  @Override
  public Endpoint pick(List<Endpoint> members, long nowNanos) {
    if (members != this.members) {
      load(members);
    } else if (weightEpoch != null && weightEpoch.get() != epoch) {
      recheck();
    }
    int n = arr.length;
    if (n == 0) {
      return null;
    }
    return weighted ? pickWeighted(n) : pickRoundRobin(n);
  }

  @Override
  public void reset(List<Endpoint> members) {
    this.members = null;
  }

  private Endpoint pickRoundRobin(int n) {
    int start = next >= n ? 0 : next;
    int i = start;
    do {
      if (arr[i].canTake()) {
        next = i + 1;
        return arr[i];
      }
      i = i + 1 == n ? 0 : i + 1;
    } while (i != start);
    return null;
  }

  private Endpoint pickWeighted(int n) {
    for (int k = Math.min(n, MAX_SKIPS); k > 0; k--) {
      int i = heapMember[0];
      clock = heapTime[0];
      turns[i]++;
      siftDown(0, nextTurn(i), i, n);
      if (arr[i].canTake()) {
        next = i + 1;
        return arr[i];
      }
    }
    int best = -1;
    double bestTime = Double.POSITIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      if (arr[i].canTake()) {
        double t = nextTurn(i);
        if (t < bestTime) {
          bestTime = t;
          best = i;
        }
      }
    }
    if (best < 0) {
      return null;
    }
    clock = bestTime;
    turns[best]++;
    heapify(n);
    next = best + 1;
    return arr[best];
  }

  private double nextTurn(int i) {
    return base[i] + (turns[i] + 0.5) / weight[i];
  }

  /** New members: reads every weight and schedules from zero. */
  private void load(List<Endpoint> members) {
    this.members = members;
    arr = members.toArray(new Endpoint[0]);
    weightEpoch = WeightEpoch.common(arr);
    epoch = weightEpoch == null ? 0 : weightEpoch.get();
    int n = arr.length;
    raw = new double[n];
    for (int i = 0; i < n; i++) {
      raw[i] = arr[i].weight();
    }
    weighted = false;
    reweigh(n);
  }

  /** Some weight changed somewhere: reschedules if a member's did. */
  private void recheck() {
    epoch = weightEpoch.get();
    boolean changed = false;
    for (int i = 0; i < arr.length; i++) {
      double w = arr[i].weight();
      if (Double.doubleToRawLongBits(w) != Double.doubleToRawLongBits(raw[i])) {
        raw[i] = w;
        changed = true;
      }
    }
    if (changed) {
      reweigh(arr.length);
    }
  }

  /** Derives the scheduled weights from {@link #raw}; keeps each member's place if already weighted. */
  private void reweigh(int n) {
    int usable = 0;
    double sum = 0;
    double first = Double.NaN;
    boolean distinct = false;
    for (int i = 0; i < n; i++) {
      double w = raw[i];
      if (usable(w)) {
        if (usable++ == 0) {
          first = w;
        } else if (w != first) {
          distinct = true;
        }
        sum += w;
      }
    }
    if (!distinct) {
      weighted = false;
      return;
    }
    double mean = sum / usable;
    double[] scheduled = new double[n];
    for (int i = 0; i < n; i++) {
      scheduled[i] = usable(raw[i]) ? raw[i] : mean;
    }
    double[] nextBase = new double[n];
    if (weighted) {
      for (int i = 0; i < n; i++) {
        double wait = (nextTurn(i) - clock) * weight[i] / scheduled[i];
        nextBase[i] = wait - 0.5 / scheduled[i];
      }
    }
    weight = scheduled;
    base = nextBase;
    turns = new long[n];
    clock = 0;
    heapTime = new double[n];
    heapMember = new int[n];
    weighted = true;
    heapify(n);
  }

  private static boolean usable(double w) {
    return w > 0 && w < Double.POSITIVE_INFINITY;
  }

  private void heapify(int n) {
    for (int i = 0; i < n; i++) {
      heapTime[i] = nextTurn(i);
      heapMember[i] = i;
    }
    for (int p = n / 2 - 1; p >= 0; p--) {
      siftDown(p, heapTime[p], heapMember[p], n);
    }
  }

  /** Puts the turn ({@code time}, {@code member}) at {@code pos} and moves it down into place. */
  private void siftDown(int pos, double time, int member, int n) {
    double[] ht = heapTime;
    int[] hm = heapMember;
    while (true) {
      int c = 2 * pos + 1;
      if (c >= n) {
        break;
      }
      int r = c + 1;
      if (r < n && (ht[r] < ht[c] || (ht[r] == ht[c] && hm[r] < hm[c]))) {
        c = r;
      }
      if (time < ht[c] || (time == ht[c] && member < hm[c])) {
        break;
      }
      ht[pos] = ht[c];
      hm[pos] = hm[c];
      pos = c;
    }
    ht[pos] = time;
    hm[pos] = member;
  }
}
