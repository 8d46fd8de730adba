package dev.fairway.balancer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A counter that moves whenever the weight of one of its endpoints changes, so that a weighted
 * strategy can tell with one read that no weight it cached is stale.
 *
 * <p>Example: endpoints b1 and b2 made with one epoch {@code e}: {@code e.get()} is 0;
 * {@code b1.setWeight(2.5)} makes it 1; {@code b2.setWeight(1.0)} (its weight already) leaves it
 * at 1.
 *
 * <p>Each {@code SlotTable} owns one and hands it to every endpoint it creates, so the members of
 * a service share one epoch and two tables (two Fairways in one JVM) never disturb each other. A
 * move may come from another service's backend of the same table, so a strategy that sees one
 * compares its members' weights before acting on it. Thread-safe: a volatile long.
 */
public final class WeightEpoch {
  private static final VarHandle VALUE;

  static {
    try {
      VALUE = MethodHandles.lookup().findVarHandle(WeightEpoch.class, "value", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private volatile long value;

  /** The current count. */
  public long get() {
    return value;
  }

  /** Moves the count on (an endpoint's weight changed). */
  void bump() {
    VALUE.getAndAdd(this, 1L);
  }

  /**
   * The epoch all {@code members} share, for a strategy to poll.
   *
   * @return {@code null} for no members
   * @throws IllegalArgumentException if the members come from different epochs (different tables)
   */
  static WeightEpoch common(Endpoint[] members) {
    if (members.length == 0) {
      return null;
    }
    WeightEpoch epoch = members[0].weightEpoch();
    for (Endpoint e : members) {
      if (e.weightEpoch() != epoch) {
        throw new IllegalArgumentException("members " + members[0] + " and " + e + " have different weight epochs");
      }
    }
    return epoch;
  }
}
