package dev.fairway.balancer;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;

/**
 * Deterministic subsetting (seed 001): which of a service's backends this proxy connects to, so
 * that every backend gets as many proxies as every other, give or take one.
 *
 * <p>Example: 12 backends {@code b00..b11}, subset size 3, 10 proxies. There are
 * {@code 12 / 3 = 4} subsets per round, so proxies 0-3 form round 0, 4-7 round 1 and 8-9 round
 * 2. Each round shuffles the id-sorted list with its round number as the seed, and proxy
 * {@code c} takes slice {@code c % 4}: proxy 0 gets {@code [b06, b09, b11]}. Rounds 0 and 1 give
 * every backend one proxy each, round 2 gives six backends a third one: every backend has 2 or
 * 3 proxies.
 *
 * <p>When the size does not divide the backend count, the first {@code n % subsetCount} slices
 * are one larger, so each backend is still in exactly one slice per round: 10 backends with size
 * 3 make slices of 4, 3 and 3. A subset size of 0, or at least the backend count, means every
 * backend.
 *
 * <p>The shuffle is a Fisher-Yates driven by {@link SplitMix64}, so all JVMs agree.
 */
public final class Subsetter {
  private Subsetter() {
  }

  /**
   * The subset of one proxy.
   *
   * @param backendIds the service's backend ids, in any order (duplicates count once)
   * @param clientId   this proxy's 0-based id among the proxies sharing the backends
   * @param subsetSize desired backends per proxy; 0 means all
   * @return the subset's ids in natural {@link String} order
   */
  public static List<String> subset(Collection<String> backendIds, int clientId, int subsetSize) {
    if (clientId < 0) {
      throw new IllegalArgumentException("clientId must be >= 0: " + clientId);
    }
    if (subsetSize < 0) {
      throw new IllegalArgumentException("subsetSize must be >= 0: " + subsetSize);
    }
    List<String> ids = new ArrayList<>(new TreeSet<>(backendIds));
    int n = ids.size();
    if (subsetSize == 0 || subsetSize >= n) {
      return List.copyOf(ids);
    }
    int subsetCount = n / subsetSize;
    int round = clientId / subsetCount;
    int subsetId = clientId % subsetCount;
    shuffle(ids, round);
    int base = n / subsetCount;
    int larger = n % subsetCount;
    int start = subsetId * base + Math.min(subsetId, larger);
    int size = base + (subsetId < larger ? 1 : 0);
    List<String> slice = new ArrayList<>(ids.subList(start, start + size));
    Collections.sort(slice);
    return List.copyOf(slice);
  }

  /** Shuffles {@code list} in place with Fisher-Yates seeded by {@code seed}. */
  static void shuffle(List<String> list, long seed) {
    SplitMix64 random = new SplitMix64(seed);
    for (int i = list.size() - 1; i > 0; i--) {
      Collections.swap(list, i, random.nextInt(i + 1));
    }
  }
}
