package dev.fairway.balancer;

import java.util.concurrent.atomic.AtomicInteger;

import java.util.List;

/**
 * Simple round robin over the members that can take a request.
 *
 * <p>Example: members W1 W2 W3 with W2 full pick {@code W1 W3 W1 W3}; once W2 frees a slot the
 * sequence goes on {@code W1 W2 W3 W1}.
 */
public final class RoundRobin implements Strategy {
  private final AtomicInteger next = new AtomicInteger();

  @Override
  public Endpoint pick(List<Endpoint> members, long nowNanos) {
    int n = members.size();
    while (true) {
      int cursor = next.get();
      Endpoint chosen = null;
      int after = cursor;
      for (int i = 0; i < n; i++) {
        int idx = (cursor + i) % n;
        Endpoint e = members.get(idx);
        if (e.canTake()) {
          chosen = e;
          after = idx + 1 == n ? 0 : idx + 1;
          break;
        }
      }
      if (chosen == null || next.compareAndSet(cursor, after)) {
        return chosen;
      }
    }
  }

  /** One cursor for every event loop: the whole process sends requests strictly in turn. */
  @Override
  public boolean sharedAcrossLanes() {
    return true;
  }
}
