package dev.fairway.balancer;

import java.util.List;

/**
 * Simple round robin over the members that can take a request.
 *
 * <p>Example: members W1 W2 W3 with W2 full pick {@code W1 W3 W1 W3}; once W2 frees a slot the
 * sequence goes on {@code W1 W2 W3 W1}.
 */
public final class RoundRobin implements Strategy {
  private int next;

  @Override
  public Endpoint pick(List<Endpoint> members, long nowNanos) {
    int n = members.size();
    for (int i = 0; i < n; i++) {
      int idx = (next + i) % n;
      Endpoint e = members.get(idx);
      if (e.canTake()) {
        next = idx + 1 == n ? 0 : idx + 1;
        return e;
      }
    }
    return null;
  }
}
