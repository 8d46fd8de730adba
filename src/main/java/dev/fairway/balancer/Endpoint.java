package dev.fairway.balancer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A backend as the strategies and the slot table see it: where it is, how many requests this
 * process has active on it, how many it may have, and whether it takes new requests at all
 * (available, not held back locally), and how its recent requests ended.
 *
 * <p>Example: {@code new Endpoint("b1", "127.0.0.1", 9001, epoch)} with {@code setCapacity(3)}
 * and two active requests {@link #canTake() can take} one more; after {@code setAvailable(false)}
 * (lame duck) it takes none, while its two requests finish.
 *
 * <p>Thread-safe: the active count is a volatile int that {@link #tryTake()} raises with a
 * compare-and-set only below the limit, so event loops take slots without a lock. Capacity and
 * availability are folded into that one volatile limit (the capacity while available, 0 while
 * not, or while held back; a share of it in slow start), so {@link #canTake()} reads two ints of
 * this object; their setters are synchronized so
 * that concurrent ones cannot leave a stale limit. Weight is volatile; every change of a weight
 * moves the endpoint's {@link WeightEpoch} (shared by the endpoints of one slot table), which
 * weighted strategies poll once per pick instead of reading every member's weight.
 */
public final class Endpoint {
  private static final VarHandle ACTIVE;
  private static final VarHandle STREAK_5XX;
  private static final VarHandle STREAK_GATEWAY;
  private static final VarHandle RAMP_VISITS;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      ACTIVE = lookup.findVarHandle(Endpoint.class, "active", int.class);
      STREAK_5XX = lookup.findVarHandle(Endpoint.class, "streak5xx", int.class);
      STREAK_GATEWAY = lookup.findVarHandle(Endpoint.class, "streakGateway", int.class);
      RAMP_VISITS = lookup.findVarHandle(Endpoint.class, "rampVisits", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final String id;
  private final String host;
  private final int port;
  private final String address;
  /** Whether connections to it use TLS (an {@code https://} URL). */
  private final boolean tls;
  /** Whether connections to it speak HTTP/2 with prior knowledge (an {@code h2c://} URL). */
  private final boolean h2c;
  private final WeightEpoch weightEpoch;
  private volatile int active;
  /** Capacity while available, 0 while not: a slot may be taken while {@code active < limit}. */
  private volatile int limit = 1;
  private volatile int capacity = 1;
  /** The part of the capacity this process may use (shared capacity in cluster mode); unlimited otherwise. */
  private volatile int share = Integer.MAX_VALUE;
  private volatile boolean available = true;
  /** Held back by this process (consecutive failures), whatever the balancer says. */
  private volatile boolean held;
  /** Holds started on this process (metered). */
  private long holdsStarted;
  /** The share of its capacity and weight a backend in slow start gets now, (0, 1]. */
  private volatile double ramp = 1.0;
  /** Visits of a strategy without weights during slow start ({@link #rampAdmits}). */
  private volatile int rampVisits;
  private volatile double baseWeight = 1.0;
  private volatile double weight = 1.0;
  /** Requests in a row that ended in a 5xx or a gateway failure, and in a gateway failure. */
  private volatile int streak5xx;
  private volatile int streakGateway;

  /**
   * @param weightEpoch moved by every change of this endpoint's weight; the endpoints of one
   *                    service must share it
   */
  public Endpoint(String id, String host, int port, WeightEpoch weightEpoch) {
    this(id, host, port, false, weightEpoch);
  }

  /**
   * @param tls         whether connections to it use TLS (an {@code https://} backend)
   * @param weightEpoch moved by every change of this endpoint's weight; the endpoints of one
   *                    service must share it
   */
  public Endpoint(String id, String host, int port, boolean tls, WeightEpoch weightEpoch) {
    this(id, host, port, tls, false, weightEpoch);
  }

  /**
   * @param tls         whether connections to it use TLS (an {@code https://} backend)
   * @param h2c         whether connections to it speak HTTP/2 with prior knowledge (an {@code h2c://} backend)
   * @param weightEpoch moved by every change of this endpoint's weight; the endpoints of one
   *                    service must share it
   */
  public Endpoint(String id, String host, int port, boolean tls, boolean h2c, WeightEpoch weightEpoch) {
    this.h2c = h2c;
    this.id = id;
    this.host = host;
    this.port = port;
    this.tls = tls;
    this.address = host + ":" + port;
    this.weightEpoch = Objects.requireNonNull(weightEpoch, "weightEpoch");
  }

  /** The epoch this endpoint's weight changes move (its table's). */
  public WeightEpoch weightEpoch() {
    return weightEpoch;
  }

  public String id() {
    return id;
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  /** Whether connections to it use TLS (an {@code https://} backend). */
  public boolean tls() {
    return tls;
  }

  /** Whether connections to it speak HTTP/2 with prior knowledge (an {@code h2c://} backend). */
  public boolean h2c() {
    return h2c;
  }

  /** {@code host:port}, e.g. {@code 127.0.0.1:9001}. */
  public String address() {
    return address;
  }

  public int capacity() {
    return capacity;
  }

  public synchronized void setCapacity(int capacity) {
    this.capacity = capacity;
    refreshLimit();
  }

  /**
   * Sets the share of the capacity this process may use (cluster mode's shared capacity); the
   * limit is then the smaller of the two, scaled by the slow-start ramp. A share of 0 takes no
   * new requests.
   */
  public synchronized void setShare(int share) {
    this.share = Math.max(0, share);
    refreshLimit();
  }

  /** The share of the capacity this process may use; {@link Integer#MAX_VALUE} when capacity is not shared. */
  public int share() {
    return share;
  }

  /** The limit from capacity, share, ramp, availability and hold. Under this object's lock. */
  private void refreshLimit() {
    int usable = Math.min(capacity, share);
    int grantable = ramp >= 1.0 || usable == 0 ? usable : Math.max(1, (int) Math.ceil(usable * ramp));
    this.limit = available && !held ? grantable : 0;
  }

  /** How many requests may be in flight here now: capacity, less during slow start; 0 if not available. */
  public int limit() {
    return limit;
  }

  /** Requests this process has in flight on the backend. */
  public int active() {
    return active;
  }

  /** Sets the active count outright (tests and benchmarks build tables with it). */
  public void setActive(int active) {
    this.active = active;
  }

  /** Takes one slot if available and below capacity, atomically; {@code false} if it cannot. */
  public boolean tryTake() {
    while (true) {
      int a = active;
      if (a >= limit) {
        return false;
      }
      if (ACTIVE.compareAndSet(this, a, a + 1)) {
        return true;
      }
    }
  }

  /** Gives one slot back. */
  public void release() {
    ACTIVE.getAndAdd(this, -1);
  }

  /**
   * The capability score used by weighted strategies, times the slow-start ramp; 1.0 when nothing
   * is known.
   */
  public double weight() {
    return weight;
  }

  /** Sets the weight; a different value (NaN counts as equal to NaN) bumps the weight epoch. */
  public synchronized void setWeight(double weight) {
    baseWeight = weight;
    applyWeight();
  }

  private void applyWeight() {
    double w = ramp >= 1.0 ? baseWeight : baseWeight * ramp;
    if (Double.doubleToLongBits(w) != Double.doubleToLongBits(this.weight)) {
      this.weight = w;
      weightEpoch.bump();
    }
  }

  /**
   * Sets the slow-start ramp: the share, in (0, 1], of its capacity (at least one slot) and of its
   * weight that the backend gets now; 1 ends slow start.
   */
  public synchronized void setRamp(double ramp) {
    if (ramp != this.ramp) {
      this.ramp = ramp;
      refreshLimit();
      applyWeight();
    }
  }

  /** The slow-start ramp, 1 when the backend gets its full capacity and weight. */
  public double ramp() {
    return ramp;
  }

  /**
   * Whether a strategy without weights (round robin) takes this backend on this visit: always at
   * full ramp; during slow start on a {@code ramp} share of its visits, spread evenly (at 0.25,
   * every fourth visit).
   */
  public boolean rampAdmits() {
    double r = ramp;
    if (r >= 1.0) {
      return true;
    }
    int v = (int) RAMP_VISITS.getAndAdd(this, 1);
    return (long) ((v + 1L) * r) > (long) (v * r);
  }

  /**
   * {@code load} as a least-loaded strategy sees it: during slow start {@code (load + 1) / ramp - 1},
   * rounded up, so that at 10 % an idle backend looks as loaded as a full one with 9 requests.
   */
  public long rampedLoad(long load) {
    double r = ramp;
    return r >= 1.0 ? load : (long) Math.ceil((load + 1) / r) - 1;
  }

  /** Holds the backend back in this process (or lets it go again), whatever its availability. */
  public synchronized void setHeld(boolean held) {
    if (held && !this.held) {
      holdsStarted++;
    }
    this.held = held;
    refreshLimit();
  }

  /** How often this process has held the backend back so far. */
  public synchronized long holdsStarted() {
    return holdsStarted;
  }

  public boolean held() {
    return held;
  }

  /**
   * Counts a request's outcome toward the failure streaks, as the balancer's outlier detection
   * counts runs: a success ends both, a 5xx other than a gateway failure ends the gateway streak
   * and lengthens the 5xx one, a gateway failure lengthens both, no answer lengthens the gateway
   * streak only, and an {@link Outcome#OVERLOADED overloaded} answer or an
   * {@link Outcome#ABANDONED abandoned} request changes neither.
   *
   * @return whether a streak reached its limit with this outcome
   */
  public boolean countStreak(Outcome outcome, int max5xx, int maxGateway) {
    switch (outcome) {
      case SUCCESS -> {
        if (streak5xx != 0) {
          streak5xx = 0;
        }
        if (streakGateway != 0) {
          streakGateway = 0;
        }
        return false;
      }
      case SERVER_ERROR -> {
        streakGateway = 0;
        return (int) STREAK_5XX.getAndAdd(this, 1) + 1 == max5xx;
      }
      case GATEWAY_FAILURE -> {
        int s5 = (int) STREAK_5XX.getAndAdd(this, 1) + 1;
        int sg = (int) STREAK_GATEWAY.getAndAdd(this, 1) + 1;
        return s5 == max5xx || sg == maxGateway;
      }
      case NO_ANSWER -> {
        return (int) STREAK_GATEWAY.getAndAdd(this, 1) + 1 == maxGateway;
      }
      default -> {
        return false;
      }
    }
  }

  /** Starts both failure streaks again from zero. */
  public void clearStreaks() {
    streak5xx = 0;
    streakGateway = 0;
  }

  /** Healthy and neither lame duck, ejected nor draining. */
  public boolean available() {
    return available;
  }

  public synchronized void setAvailable(boolean available) {
    this.available = available;
    refreshLimit();
  }

  /** Available and below its capacity: a request may be granted here now. */
  public boolean canTake() {
    return active < limit;
  }

  /**
   * The active count if a request may be granted here now, else -1: {@link #canTake()} and
   * {@link #active()} with one read of each field, for strategies that scan their members.
   */
  int activeIfTakeable() {
    int a = active;
    return a < limit ? a : -1;
  }

  @Override
  public String toString() {
    return id;
  }
}
