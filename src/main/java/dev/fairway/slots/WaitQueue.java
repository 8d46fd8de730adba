package dev.fairway.slots;

import dev.fairway.balancer.Endpoint;
import dev.fairway.overload.Criticality;

/**
 * One service's waiters for a slot, ordered by {@link Criticality} and first come, first served
 * within a class: one intrusive FIFO per class, so that adding, removing (a cancel from the
 * middle) and finding the head or the place to shed are all O(1) but for the four classes.
 *
 * <p>Example: {@code s1} (sheddable), {@code c1} (critical), {@code s2}, {@code c2} arrive in that
 * order; they are served {@code c1 c2 s1 s2}. Were the queue full when a {@code critical-plus}
 * request came, {@link #newestBelow} would name {@code s2}, the newest of the least important class.
 *
 * <p>Not thread-safe: the {@link SlotTable} calls it under its lock. A waiter is filed under the
 * class it had when it was {@link #add added}, whatever its criticality becomes later.
 */
final class WaitQueue {
  private static final int CLASSES = Criticality.ALL.length;
  private final Waiter[] first = new Waiter[CLASSES];
  private final Waiter[] last = new Waiter[CLASSES];
  private int size;

  /** Appends {@code w} to the end of its class. */
  void add(Waiter w) {
    int c = w.criticality().rank();
    w.queuedRank = c;
    w.prev = last[c];
    w.next = null;
    if (last[c] == null) {
      first[c] = w;
    } else {
      last[c].next = w;
    }
    last[c] = w;
    size++;
  }

  /** Takes {@code w}, which is in this queue, out of it, wherever it is. */
  void remove(Waiter w) {
    int c = w.queuedRank;
    if (w.prev == null) {
      first[c] = w.next;
    } else {
      w.prev.next = w.next;
    }
    if (w.next == null) {
      last[c] = w.prev;
    } else {
      w.next.prev = w.prev;
    }
    w.prev = null;
    w.next = null;
    size--;
  }

  /** The waiter to serve next: the oldest of the most important class that has any; {@code null} if empty. */
  Waiter head() {
    for (int c = 0; c < CLASSES; c++) {
      if (first[c] != null) {
        return first[c];
      }
    }
    return null;
  }

  /** The waiter served after {@code w}, in serving order; {@code null} after the last. */
  Waiter after(Waiter w) {
    if (w.next != null) {
      return w.next;
    }
    for (int c = w.queuedRank + 1; c < CLASSES; c++) {
      if (first[c] != null) {
        return first[c];
      }
    }
    return null;
  }

  /** The first waiter, in serving order, that may take a slot of {@code e} (a retry may not take its failed backend's). */
  Waiter firstAllowedOn(Endpoint e) {
    for (Waiter w = head(); w != null; w = after(w)) {
      if (w.excluded != e) {
        return w;
      }
    }
    return null;
  }

  /**
   * The waiter to refuse so that a newcomer of class {@code newcomer} can wait in a full queue:
   * the newest of the least important class that ranks below {@code newcomer}; {@code null} if no
   * waiter ranks below it (the newcomer is the one refused).
   */
  Waiter newestBelow(Criticality newcomer) {
    for (int c = CLASSES - 1; c > newcomer.rank(); c--) {
      if (last[c] != null) {
        return last[c];
      }
    }
    return null;
  }

  /** How many wait. */
  int size() {
    return size;
  }

  /**
   * Whether {@code a} is served before {@code b} when both wait for the same freed slot (two
   * services sharing a backend): the more important class first, then the older.
   */
  static boolean servedBefore(Waiter a, Waiter b) {
    return a.queuedRank != b.queuedRank ? a.queuedRank < b.queuedRank : a.seq < b.seq;
  }
}
