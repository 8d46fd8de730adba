package dev.fairway.balancer;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Seed 000's free-slot queue: a FIFO of free slots; a request takes the head, a freed slot goes
 * to the tail.
 *
 * <p>Example: W1 with capacity 3 and W2 with capacity 4, added in that order, make the queue
 * {@code W2 W1 W2 W1 W2 W1 W2}; seven requests take exactly that sequence. When the first (W2)
 * finishes, its slot joins the tail, so had nothing been taken the queue would read
 * {@code W1 W2 W1 W2 W1 W2 W2}.
 *
 * <p>The queue is built by taking, slot after slot, the member with the most free slots left
 * (ties to the member listed first). Entries of unavailable members (lame duck, unhealthy) stay
 * in place and are skipped; entries of removed members, or of members with no free slot left (a
 * service sharing the backend took it), are dropped.
 */
public final class SlotQueue implements Strategy {
  private final ArrayDeque<Endpoint> free = new ArrayDeque<>();
  private List<Endpoint> known;
  private Set<Endpoint> memberSet = Set.of();

  @Override
  public Endpoint pick(List<Endpoint> members, long nowNanos) {
    for (Iterator<Endpoint> it = free.iterator(); it.hasNext(); ) {
      Endpoint e = it.next();
      if (!isMember(members, e) || (e.available() && !e.canTake())) {
        it.remove();
      } else if (e.canTake()) {
        it.remove();
        return e;
      }
    }
    return null;
  }

  @Override
  public void onSlotFreed(Endpoint endpoint) {
    free.addLast(endpoint);
  }

  @Override
  public void reset(List<Endpoint> members) {
    free.clear();
    int[] left = new int[members.size()];
    int total = 0;
    for (int i = 0; i < left.length; i++) {
      Endpoint e = members.get(i);
      left[i] = Math.max(0, e.capacity() - e.active());
      total += left[i];
    }
    for (int k = 0; k < total; k++) {
      int best = 0;
      for (int i = 1; i < left.length; i++) {
        if (left[i] > left[best]) {
          best = i;
        }
      }
      left[best]--;
      free.addLast(members.get(best));
    }
  }

  /** {@code members.contains(e)} in O(1): a membership set rebuilt when the list object changes. */
  private boolean isMember(List<Endpoint> members, Endpoint e) {
    if (members != known) {
      Set<Endpoint> set = Collections.newSetFromMap(new IdentityHashMap<>(members.size() * 2));
      set.addAll(members);
      memberSet = set;
      known = members;
    }
    return memberSet.contains(e);
  }

  /** The queue from head to tail, for tests and the admin view. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    for (Endpoint e : free) {
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append(e.id());
    }
    return sb.toString();
  }
}
