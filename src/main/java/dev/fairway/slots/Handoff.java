package dev.fairway.slots;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.Strategy;
import java.util.List;

/**
 * How a slot is found for a request: the strategy's pick, and, for a retry, any member but the
 * backend that just failed it; and how freed slots are handed to waiters ({@link #dispatch}). Called under the {@link SlotTable}'s lock where it queues or
 * hands off, and lock-free on the fast path.
 *
 * <p>Example: members b1, b2, b3, all full but b1 with a free slot; a retry that excludes b1 gets
 * no slot from {@link #takeExcept} and waits; a request arriving next takes b1's free slot
 * ({@link #takeExcluded}); when b1 frees another slot, the hand-off asks {@link #waiterFor} for
 * the first waiter that may use it, which skips the retry.
 */
final class Handoff {
  private Handoff() {
  }

  /** Picks with {@code strategy} and takes the slot atomically; a few tries if another lane wins. */
  static Endpoint pickAndTake(ServiceSlots service, Strategy strategy, long nowNanos) {
    if (!service.takeServiceSlot()) {
      return null;
    }
    List<Endpoint> members = service.members;
    for (int attempt = 0; attempt < 4; attempt++) {
      Endpoint e = strategy.pick(members, nowNanos);
      if (e == null) {
        break;
      }
      if (e.tryTake()) {
        return e;
      }
    }
    service.releaseServiceSlot();
    return null;
  }

  /**
   * Takes a slot, with the service slot, on a member other than {@code excluded}: the strategy's
   * pick if it is not {@code excluded}, else the first other member with a free slot.
   *
   * @return the member, or {@code null} if none but {@code excluded} has a free slot
   */
  static Endpoint takeExcept(ServiceSlots service, Strategy strategy, Endpoint excluded, long nowNanos) {
    Endpoint e = pickAndTake(service, strategy, nowNanos);
    if (e == null || e != excluded) {
      return e;
    }
    Endpoint other = takeOther(service, excluded);
    e.release();
    strategy.onSlotFreed(e); // its pick may have used up the free slot it tracks (slot-queue)
    if (other == null) {
      service.releaseServiceSlot();
    }
    return other;
  }

  /**
   * Takes a slot on a member other than {@code excluded}, without the service slot.
   *
   * @return the member, or {@code null}
   */
  static Endpoint takeOther(ServiceSlots service, Endpoint excluded) {
    for (Endpoint e : service.members) {
      if (e != excluded && e.tryTake()) {
        return e;
      }
    }
    return null;
  }

  /**
   * Takes a slot of {@code excluded}, with the service slot, for a request that arrives behind a
   * waiting retry that excludes it: a free slot there is one no waiter can use (a hand-off would
   * have given any other free slot to the retry).
   *
   * @return {@code excluded}, or {@code null} if it is full
   */
  static Endpoint takeExcluded(ServiceSlots service, Endpoint excluded) {
    if (!service.takeServiceSlot()) {
      return null;
    }
    if (excluded.tryTake()) {
      return excluded;
    }
    service.releaseServiceSlot();
    return null;
  }

  /** Whether the service has a member other than {@code excluded} that takes requests (full or not). */
  static boolean anyOtherAvailable(ServiceSlots service, Endpoint excluded) {
    for (Endpoint e : service.members) {
      if (e != excluded && e.limit() > 0) {
        return true;
      }
    }
    return false;
  }

  /** The first queued waiter of {@code service}, in serving order, that may use a slot of {@code e}, or {@code null}. */
  static Waiter waiterFor(ServiceSlots service, Endpoint e) {
    return service.queue.firstAllowedOn(e);
  }

  /**
   * Serves queued waiters while slots are free, across {@code candidates} the most important class
   * first and the oldest first within a class ({@link WaitQueue#servedBefore}). Under the table's
   * lock; {@code candidates} is consumed.
   */
  static void dispatch(List<ServiceSlots> candidates, long nowNanos) {
    while (!candidates.isEmpty()) {
      ServiceSlots best = null;
      Waiter first = null;
      for (int i = candidates.size() - 1; i >= 0; i--) {
        ServiceSlots x = candidates.get(i);
        Waiter h = x.belowCap() ? x.head() : null;
        if (h == null) {
          candidates.remove(i);
        } else if (first == null || WaitQueue.servedBefore(h, first)) {
          best = x;
          first = h;
        }
      }
      if (best == null) {
        return;
      }
      Endpoint e = first.excluded == null ? pickAndTake(best, best.shared, nowNanos)
          : takeExcept(best, best.shared, first.excluded, nowNanos);
      if (e == null && first.excluded != null) {
        e = pickAndTake(best, best.shared, nowNanos); // a slot only the retry cannot use
        first = e == null ? null : waiterFor(best, e);
        if (first == null && e != null) {
          e.release();
          best.shared.onSlotFreed(e);
          best.releaseServiceSlot();
          e = null;
        }
      }
      if (e == null) {
        candidates.remove(best);
        continue;
      }
      best.unlink(first);
      best.waiting--;
      first.grant(e);
      first.granted(e);
    }
  }
}
