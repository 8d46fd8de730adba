package dev.fairway.balancer;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A backend as the strategies and the slot table see it: where it is, how many requests this
 * process has active on it, how many it may have, and whether it takes new requests at all.
 *
 * <p>Example: {@code new Endpoint("b1", "127.0.0.1", 9001)} with {@code setCapacity(3)} and two
 * active requests {@link #canTake() can take} one more; after {@code setAvailable(false)} (lame
 * duck) it takes none, while its two requests finish.
 *
 * <p>Thread-safe: the active count is an atomic that {@link #tryTake()} raises only below the
 * capacity, so event loops take slots without a lock; capacity, weight and availability are
 * volatile and written by the balancer.
 */
public final class Endpoint {
  private final String id;
  private final String host;
  private final int port;
  private final AtomicInteger active = new AtomicInteger();
  private volatile int capacity = 1;
  private volatile double weight = 1.0;
  private volatile boolean available = true;

  public Endpoint(String id, String host, int port) {
    this.id = id;
    this.host = host;
    this.port = port;
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

  public int capacity() {
    return capacity;
  }

  public void setCapacity(int capacity) {
    this.capacity = capacity;
  }

  /** Requests this process has in flight on the backend. */
  public int active() {
    return active.get();
  }

  /** Sets the active count outright (tests and benchmarks build tables with it). */
  public void setActive(int active) {
    this.active.set(active);
  }

  /** Takes one slot if available and below capacity, atomically; {@code false} if it cannot. */
  public boolean tryTake() {
    while (true) {
      int a = active.get();
      if (!available || a >= capacity) {
        return false;
      }
      if (active.compareAndSet(a, a + 1)) {
        return true;
      }
    }
  }

  /** Gives one slot back. */
  public void release() {
    active.decrementAndGet();
  }

  /** The capability score used by weighted strategies; 1.0 when nothing is known. */
  public double weight() {
    return weight;
  }

  public void setWeight(double weight) {
    this.weight = weight;
  }

  /** Healthy and neither lame duck, ejected nor draining. */
  public boolean available() {
    return available;
  }

  public void setAvailable(boolean available) {
    this.available = available;
  }

  /** Available and below its capacity: a request may be granted here now. */
  public boolean canTake() {
    return available && active.get() < capacity;
  }

  @Override
  public String toString() {
    return id;
  }
}
