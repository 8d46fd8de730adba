package dev.fairway.lease;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whether this member reaches the lease map, and the shares it uses when it does not: each
 * backend's capacity divided by the last member count it knew ({@link ShareAllocator#fallback}).
 *
 * <p>Example: rounds reach the map with 3 members; then one times out (a partition):
 * {@code unreachable({b1=20})} gives {@code {b1=6}} and {@link #entered()} is {@code true} once,
 * for the log line; the next round that reaches the map ends the fallback ({@code reached(3)}
 * returns {@code true}).
 *
 * <p>Not thread-safe: one lease thread uses it.
 */
public final class Fallback {
  private int lastMembers = 1;
  private boolean active;
  private boolean entered;

  /** A round reached the map with {@code members} members; {@code true} if that ends a fallback. */
  public boolean reached(int members) {
    lastMembers = Math.max(1, members);
    boolean ended = active;
    active = false;
    return ended;
  }

  /** A round did not reach the map: the shares to use, by backend, from their capacities. */
  public Map<String, Integer> unreachable(Map<String, Integer> capacities) {
    entered = !active;
    active = true;
    Map<String, Integer> shares = new LinkedHashMap<>();
    capacities.forEach((id, c) -> shares.put(id, ShareAllocator.fallback(c, lastMembers)));
    return shares;
  }

  /** Whether the last {@link #unreachable} call started the fallback (the round before reached the map). */
  public boolean entered() {
    return entered;
  }

  /** Whether this member is falling back now. */
  public boolean active() {
    return active;
  }

  /** The member count the fallback divides by. */
  public int lastMembers() {
    return lastMembers;
  }
}
