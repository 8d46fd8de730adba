package dev.fairway.route;

import java.util.HashMap;
import java.util.Map;

/**
 * One lane's picks among the targets of the splits: a {@link WeightedSplit} per splitting
 * service, kept across snapshots while its targets stay the same (a changed split starts over).
 * The exact sequence is per lane: each event loop picks on its own, so with several lanes the
 * shares are exact per lane and close overall.
 *
 * <p>Example: a service {@code canary} with {@code split} v1=95, v2=5 matched by 100 requests on one
 * lane: {@code resolve} returns v1's route 95 times and v2's 5 times (the 11th, 31st, ... request);
 * a route without a split is returned as it is.
 */
public final class SplitPicks {
  private final Map<String, WeightedSplit> byService = new HashMap<>();

  /**
   * @param snapshot the snapshot {@code matched} came from
   * @param matched  the route whose rule matched the request
   * @return the route that serves the request: {@code matched}, or the route of the split target
   *         picked; {@code null} if that target is not in the snapshot
   */
  public Route resolve(BalancerSnapshot snapshot, Route matched) {
    if (matched.split().isEmpty()) {
      return matched;
    }
    WeightedSplit w = byService.get(matched.service());
    if (w == null || w.targets() != matched.split() && !w.targets().equals(matched.split())) {
      w = new WeightedSplit(matched.split());
      byService.put(matched.service(), w);
    }
    return snapshot.service(w.next());
  }
}
