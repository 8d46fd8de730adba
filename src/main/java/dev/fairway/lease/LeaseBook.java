package dev.fairway.lease;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One member's lease renewal on one backend's entry of the lease map: the step that runs
 * atomically on the entry (a Hazelcast entry processor), every lease interval, per member.
 *
 * <p>Example: capacity 20, entry {a=(share 7, in use 7), b=(7, 2), c=(6, 1)}, a renews with
 * in use 7 and demand 23 while b and c last reported demands 3: targets are {a=14, b=3, c=3};
 * a may only take the headroom 20 - 7 - 6 = 7, so it keeps 7. After b and c renewed (shares 3,
 * claims 3), a's next renewal gets 14.
 *
 * <p>Members not in {@code live} (they left the cluster) are dropped from the entry first; live
 * members that have not renewed yet count with demand 0, so the first member to renew after a
 * start takes its even part, not the whole capacity.
 */
public final class LeaseBook {
  private LeaseBook() {
  }

  /**
   * The entry after the renewal, and the share it grants the renewing member.
   *
   * @param holdings the whole entry, every member's holding
   * @param share    the renewing member's new share
   */
  public record Renewal(Map<String, Holding> holdings, int share) {
    public Renewal {
      holdings = Map.copyOf(holdings);
    }
  }

  /**
   * Renews {@code self}'s lease.
   *
   * @param entry    the entry as stored (empty for a backend nobody leased yet)
   * @param self     the renewing member's id
   * @param capacity the backend's cluster-wide capacity
   * @param inUse    slots {@code self} has in flight now
   * @param demand   {@code self}'s recent demand ({@link DemandWindow#peak})
   * @param live     the ids of the current cluster members
   */
  public static Renewal renew(Map<String, Holding> entry, String self, int capacity, int inUse, int demand, long nowMs,
                              Collection<String> live) {
    return renew(entry, self, capacity, inUse, demand, nowMs, live, true);
  }

  /**
   * Renews {@code self}'s lease; a member that does not {@code use} the backend (not in any of its
   * subsets) takes share 0 and is left out of the split, so the members that use it share all of it.
   */
  public static Renewal renew(Map<String, Holding> entry, String self, int capacity, int inUse, int demand, long nowMs,
                              Collection<String> live, boolean uses) {
    TreeMap<String, Holding> kept = new TreeMap<>();
    entry.forEach((m, h) -> {
      if (live.contains(m) || m.equals(self)) {
        kept.put(m, h);
      }
    });
    Holding old = kept.get(self);
    kept.put(self, new Holding(old == null ? 0 : old.share(), inUse, demand, nowMs, uses));
    TreeMap<String, Integer> everyone = new TreeMap<>();
    live.forEach(m -> everyone.put(m, 0)); // a member that has not renewed yet still gets its part
    kept.forEach((m, h) -> everyone.put(m, h.demand()));
    kept.forEach((m, h) -> {
      if (!h.uses()) {
        everyone.remove(m);
      }
    });
    LinkedHashMap<String, Integer> demands = new LinkedHashMap<>(everyone);
    int target = uses ? ShareAllocator.targets(capacity, demands).get(self) : 0;
    int others = 0;
    for (Map.Entry<String, Holding> e : kept.entrySet()) {
      if (!e.getKey().equals(self)) {
        others += e.getValue().claim();
      }
    }
    int share = ShareAllocator.step(capacity, target, others);
    kept.put(self, new Holding(share, inUse, demand, nowMs, uses));
    return new Renewal(kept, share);
  }
}
