package dev.fairway.slots;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.Strategy;
import dev.fairway.config.BalancingSettings;
import dev.fairway.config.StrategyName;
import java.util.ArrayDeque;
import java.util.List;

/**
 * One service's part of the {@link SlotTable}: its members, strategy, service-wide cap and FIFO
 * of waiters. All state is guarded by the table's lock.
 *
 * <p>Example: a service with {@code maxActive} 5 over a pool of capacity 50 has at most five
 * requests in flight, and its sixth request waits even while the pool has free slots.
 */
public final class ServiceSlots {
  private final String name;
  StrategyName strategyName;
  BalancingSettings balancing;
  Strategy strategy;
  List<Endpoint> members = List.of();
  int maxWaiting;
  int maxActive;
  int active;
  int waiting;
  final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
  boolean removed;

  ServiceSlots(String name) {
    this.name = name;
  }

  public String name() {
    return name;
  }

  boolean belowCap() {
    return maxActive == 0 || active < maxActive;
  }

  /** The oldest waiter still waiting, dropping cancelled ones from the head. */
  Waiter head() {
    Waiter w;
    while ((w = waiters.peekFirst()) != null && w.state != Waiter.State.WAITING) {
      waiters.pollFirst();
    }
    return w;
  }

  boolean anyAvailable() {
    for (Endpoint e : members) {
      if (e.available()) {
        return true;
      }
    }
    return false;
  }
}
