package dev.fairway.balancer;

import java.util.concurrent.atomic.AtomicInteger;

import java.util.List;

/**
 * Simple round robin over the members that can take a request.
 *
 * <p>Example: members W1 W2 W3 with W2 full pick {@code W1 W3 W1 W3}; once W2 frees a slot the
 * sequence goes on {@code W1 W2 W3 W1}. A member in slow start at ramp 0.25 is taken on every
 * fourth visit of the cursor (unless no other member can take the request).
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
      int skipped = -1; // the first member passed over only for its slow start
      for (int i = 0; i < n; i++) {
        int idx = (cursor + i) % n;
        Endpoint e = members.get(idx);
        if (e.canTake()) {
          if (e.rampAdmits()) {
            chosen = e;
            after = idx + 1 == n ? 0 : idx + 1;
            break;
          }
          if (skipped < 0) {
            skipped = idx;
          }
        }
      }
      if (chosen == null && skipped >= 0) { // nothing else can take it: better slow than queued
        chosen = members.get(skipped);
        after = skipped + 1 == n ? 0 : skipped + 1;
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
