package dev.fairway.cluster;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * This proxy's place among the cluster members, as deterministic subsetting needs it: its
 * 0-based client id and the number of clients.
 *
 * <p>Example: members {@code c1…, 0a…, 7f…} (node ids, UUID strings) sort to
 * {@code 0a…, 7f…, c1…}; the member {@code 7f…} is client 1 of 3. When {@code 0a…} leaves,
 * {@code 7f…} becomes client 0 of 2 and {@code c1…} client 1 of 2.
 *
 * <p>Pure: no {@code io.vertx} or Hazelcast types, so every member computes the same answer from
 * the same member list.
 *
 * @param clientId    0-based position of this member among the members sorted by node id
 * @param clientCount number of members
 */
public record ClientPosition(int clientId, int clientCount) {
  public ClientPosition {
    if (clientCount < 1 || clientId < 0 || clientId >= clientCount) {
      throw new IllegalArgumentException("no client " + clientId + " of " + clientCount);
    }
  }

  /**
   * The position of {@code selfId} among {@code memberIds} sorted in natural {@link String}
   * order. Duplicates count once; {@code selfId} counts as a member even when the list (being
   * read while this member joins or leaves) lacks it.
   */
  public static ClientPosition among(Collection<String> memberIds, String selfId) {
    Objects.requireNonNull(selfId, "selfId");
    TreeSet<String> sorted = new TreeSet<>(memberIds);
    sorted.add(selfId);
    return new ClientPosition(sorted.headSet(selfId).size(), sorted.size());
  }

  /** The members in client-id order: element {@code i} is client {@code i}. */
  public static List<String> order(Collection<String> memberIds) {
    return List.copyOf(new TreeSet<>(memberIds));
  }

  @Override
  public String toString() {
    return "client " + clientId + " of " + clientCount;
  }
}
