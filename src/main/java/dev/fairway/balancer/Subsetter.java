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
 *
 * <p>{@link #order} gives the backends outside the subset in the order a proxy takes them as
 * replacements: the rest of its own round's shuffle, starting right after its slice and wrapping
 * around. A round holds every backend once, so no later round is needed; and since each proxy of a round starts
 * at a different slice, the proxies that lose the same member take different replacements.
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
    int[] slice = slice(ids, clientId, subsetSize);
    List<String> mine = new ArrayList<>(ids.subList(slice[0], slice[0] + slice[1]));
    Collections.sort(mine);
    return List.copyOf(mine);
  }

  /**
   * The backends outside {@link #subset}'s answer, in the order this proxy takes them as
   * replacements for unavailable members: its round's shuffle from the end of its slice on,
   * wrapping around.
   *
   * <p>Example: 12 backends {@code b00..b11}, size 3, proxy 0 (slice {@code [b05, b11, b06]} of
   * round 0's {@code [b05, b11, b06, b07, b03, ...]}) gives {@code [b07, b03, b01, b02, b09, b08,
   * b00, b04, b10]}.
   *
   * @return empty when the subset holds every backend
   */
  public static List<String> order(Collection<String> backendIds, int clientId, int subsetSize) {
    List<String> ids = new ArrayList<>(new TreeSet<>(backendIds));
    int n = ids.size();
    if (subsetSize == 0 || subsetSize >= n) {
      return List.of();
    }
    int[] slice = slice(ids, clientId, subsetSize);
    List<String> out = new ArrayList<>(n - slice[1]);
    for (int i = 0; i < n - slice[1]; i++) {
      out.add(ids.get((slice[0] + slice[1] + i) % n));
    }
    return List.copyOf(out);
  }

  /**
   * Shuffles {@code ids} (sorted, more than {@code subsetSize}) for the proxy's round in place.
   *
   * @return the start and the length of its slice
   */
  private static int[] slice(List<String> ids, int clientId, int subsetSize) {
    if (clientId < 0) {
      throw new IllegalArgumentException("clientId must be >= 0: " + clientId);
    }
    int n = ids.size();
    int subsetCount = n / subsetSize;
    int round = clientId / subsetCount;
    int subsetId = clientId % subsetCount;
    shuffle(ids, round);
    int base = n / subsetCount;
    int larger = n % subsetCount;
    return new int[] {subsetId * base + Math.min(subsetId, larger), base + (subsetId < larger ? 1 : 0)};
  }

  /** Shuffles {@code list} in place with Fisher-Yates seeded by {@code seed}. */
  static void shuffle(List<String> list, long seed) {
    SplitMix64 random = new SplitMix64(seed);
    for (int i = list.size() - 1; i > 0; i--) {
      Collections.swap(list, i, random.nextInt(i + 1));
    }
  }
}
