package dev.fairway.cluster;

import java.util.Collection;
import java.util.Objects;
import java.util.TreeSet;

/**
 * This proxy's place among the cluster members, as deterministic subsetting needs it: its
 * 0-based client id and the number of clients.
 *
 * <p>Example: {@link IdAssignment} {@code a=0 c=2 (b=1 reserved)} puts {@code c} at client 2 of
 * 3. Only when the shared assignment cannot be read does a member fall back to {@link #among}:
 * its rank among the sorted member names, {@code a, c} making {@code c} client 1 of 2.
 *
 * <p>Pure: no {@code io.vertx} or Hazelcast types.
 *
 * @param clientId    0-based client id of this member
 * @param clientCount number of clients
 */
public record ClientPosition(int clientId, int clientCount) {
  public ClientPosition {
    if (clientCount < 1 || clientId < 0 || clientId >= clientCount) {
      throw new IllegalArgumentException("no client " + clientId + " of " + clientCount);
    }
  }

  /**
   * The position of {@code selfId} among {@code memberIds} (names or node ids) sorted in natural
   * {@link String} order. Duplicates count once; {@code selfId} counts as a member even when the list (being
   * read while this member joins or leaves) lacks it.
   */
  public static ClientPosition among(Collection<String> memberIds, String selfId) {
    Objects.requireNonNull(selfId, "selfId");
    TreeSet<String> sorted = new TreeSet<>(memberIds);
    sorted.add(selfId);
    return new ClientPosition(sorted.headSet(selfId).size(), sorted.size());
  }

  @Override
  public String toString() {
    return "client " + clientId + " of " + clientCount;
  }
}
