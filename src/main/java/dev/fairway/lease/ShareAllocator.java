package dev.fairway.lease;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits one backend's cluster-wide capacity into per-member shares by recent demand.
 *
 * <p>Example: capacity 20, demands {a=23, b=3, c=3}: each member first gets 1 slot, the other 17
 * are water-filled by what each still wants (a 22, b 2, c 2): b and c get their 2, a the 13 left,
 * so the shares are {a=14, b=3, c=3}. An idle cluster, demands {a=0, b=0, c=0}, splits evenly:
 * {a=7, b=7, c=6} (the remainder goes to the first members in order). When demand leaves spare
 * slots, the spare is split evenly too, so each member can absorb a burst before the next round.
 *
 * <p>Fewer slots than members ({@code capacity < members}): the {@code capacity} members with the
 * highest demand (ties in member order) get one slot each and the others none; those queue their
 * requests until a later round hands them a slot, which their then higher demand earns them.
 *
 * <p>Pure: every member computes the same shares from the same inputs.
 */
public final class ShareAllocator {
  private ShareAllocator() {
  }

  /**
   * Target shares, summing to {@code capacity} (when there is at least one member).
   *
   * @param demands each member's demand, in member order (the order breaks ties)
   */
  public static Map<String, Integer> targets(int capacity, LinkedHashMap<String, Integer> demands) {
    Map<String, Integer> out = new LinkedHashMap<>();
    List<String> members = new ArrayList<>(demands.keySet());
    int n = members.size();
    if (n == 0) {
      return out;
    }
    if (capacity < n) {
      List<String> byDemand = new ArrayList<>(members);
      byDemand.sort(Comparator.comparing((String m) -> -demands.get(m)).thenComparing(members::indexOf));
      for (String m : members) {
        out.put(m, byDemand.indexOf(m) < capacity ? 1 : 0);
      }
      return out;
    }
    for (String m : members) {
      out.put(m, 1);
    }
    int left = waterFill(capacity - n, members, demands, out);
    int each = left / n;
    int extra = left % n;
    for (int i = 0; i < n; i++) {
      out.merge(members.get(i), each + (i < extra ? 1 : 0), Integer::sum);
    }
    return out;
  }

  /** Gives each member up to {@code demand - 1} more, smallest needs filled first; returns the slots left. */
  private static int waterFill(int slots, List<String> members, Map<String, Integer> demands, Map<String, Integer> out) {
    List<String> wanting = new ArrayList<>();
    for (String m : members) {
      if (demands.get(m) > 1) {
        wanting.add(m);
      }
    }
    wanting.sort(Comparator.comparing((String m) -> demands.get(m)).thenComparing(members::indexOf));
    int left = slots;
    while (!wanting.isEmpty() && left > 0) {
      String smallest = wanting.get(0);
      int need = demands.get(smallest) - 1;
      int equal = left / wanting.size();
      if (need <= equal) {
        out.merge(smallest, need, Integer::sum);
        left -= need;
        wanting.remove(0);
        continue;
      }
      wanting.sort(Comparator.comparing(members::indexOf));
      int extra = left % wanting.size();
      for (int i = 0; i < wanting.size(); i++) {
        out.merge(wanting.get(i), equal + (i < extra ? 1 : 0), Integer::sum);
      }
      return 0;
    }
    return left;
  }

  /**
   * The safe step toward {@code target}: never above the headroom the others' claims leave, so the
   * slots all members may use never sum above {@code capacity}, even while shares move. Lowering
   * happens at once; raising waits for the others to lower theirs and finish what they have in
   * flight above their new shares.
   *
   * <p>Example: capacity 20, target 14; the others claim 7 (share 3, but 7 still in use) and 7:
   * headroom is 20 - 7 - 7 = 6, so the share is 6; once the first one's in-use is down to 3, the
   * headroom is 10 and the share 10.
   *
   * @param othersClaims the sum of {@link Holding#claim()} over the other members
   */
  public static int step(int capacity, int target, int othersClaims) {
    return Math.max(0, Math.min(target, capacity - othersClaims));
  }

  /**
   * The share of a member that cannot reach the lease map: capacity divided by the last known
   * number of members, rounded down, but at least one slot.
   *
   * <p>Example: capacity 20 and 3 members give 6; capacity 2 and 3 members give 1.
   */
  public static int fallback(int capacity, int members) {
    return Math.max(Math.min(1, capacity), capacity / Math.max(1, members));
  }
}
