package dev.fairway.balancer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A backend as the strategies and the slot table see it: where it is, how many requests this
 * process has active on it, how many it may have, and whether it takes new requests at all.
 *
 * <p>Example: {@code new Endpoint("b1", "127.0.0.1", 9001, epoch)} with {@code setCapacity(3)}
 * and two active requests {@link #canTake() can take} one more; after {@code setAvailable(false)}
 * (lame duck) it takes none, while its two requests finish.
 *
 * <p>Thread-safe: the active count is a volatile int that {@link #tryTake()} raises with a
 * compare-and-set only below the limit, so event loops take slots without a lock. Capacity and
 * availability are folded into that one volatile limit (the capacity while available, 0 while
 * not), so {@link #canTake()} reads two ints of this object; their setters are synchronized so
 * that concurrent ones cannot leave a stale limit. Weight is volatile; every change of a weight
 * moves the endpoint's {@link WeightEpoch} (shared by the endpoints of one slot table), which
 * weighted strategies poll once per pick instead of reading every member's weight.
 */
public final class Endpoint {
  private static final VarHandle ACTIVE;

  static {
    try {
      ACTIVE = MethodHandles.lookup().findVarHandle(Endpoint.class, "active", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final String id;
  private final String host;
  private final int port;
  private final String address;
  private final WeightEpoch weightEpoch;
  private volatile int active;
  /** Capacity while available, 0 while not: a slot may be taken while {@code active < limit}. */
  private volatile int limit = 1;
  private volatile int capacity = 1;
  private volatile boolean available = true;
  private volatile double weight = 1.0;

  /**
   * @param weightEpoch moved by every change of this endpoint's weight; the endpoints of one
   *                    service must share it
   */
  public Endpoint(String id, String host, int port, WeightEpoch weightEpoch) {
    this.id = id;
    this.host = host;
    this.port = port;
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

  /** {@code host:port}, e.g. {@code 127.0.0.1:9001}. */
  public String address() {
    return address;
  }

  public int capacity() {
    return capacity;
  }

  public synchronized void setCapacity(int capacity) {
    this.capacity = capacity;
    this.limit = available ? capacity : 0;
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

  /** The capability score used by weighted strategies; 1.0 when nothing is known. */
  public double weight() {
    return weight;
  }

  /** Sets the weight; a different value (NaN counts as equal to NaN) bumps the weight epoch. */
  public void setWeight(double weight) {
    if (Double.doubleToLongBits(weight) != Double.doubleToLongBits(this.weight)) {
      this.weight = weight;
      weightEpoch.bump();
    }
  }

  /** Healthy and neither lame duck, ejected nor draining. */
  public boolean available() {
    return available;
  }

  public synchronized void setAvailable(boolean available) {
    this.available = available;
    this.limit = available ? capacity : 0;
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
