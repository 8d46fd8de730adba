package dev.fairway.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The cluster's subsetting client ids, by stable node name: who holds which id, and which ids of
 * departed members are reserved for their return.
 *
 * <p>Example: {@code a=0, b=1, c=2}. {@code b} stops (grace 30 s): {@code a=0, c=2}, id 1
 * reserved for {@code b}, still 3 clients, so no subset changes. {@code b} restarts within the
 * grace: it reclaims id 1 and nothing moved. Had it stayed away, the reservation expires and
 * {@code c}, the highest id, moves into the hole: {@code a=0, c=1} of 2 (one reassignment, where
 * ids by sorted node id would renumber everyone after the hole). A new name {@code d} takes the
 * lowest free id.
 *
 * <p>Rules, in order: ids are dense, {@code 0..N-1} with {@code N} = live members plus unexpired
 * reservations; a live member keeps its id; a returning name reclaims its reserved id; ids at or
 * above {@code N} (a hole opened below) move into the holes, highest id to lowest hole; new names
 * take the remaining holes, lowest first, in name order. Two live members with one name (a
 * misconfiguration, or a crashed member not yet noticed gone while its restart is back): the
 * member already holding the name keeps it (else the lower node id takes it) and the other gets a
 * key {@code name#nodeId} of its own, never reserved when it leaves.
 *
 * <p>Pure and deterministic: every member computes the same answer from the same inputs; time
 * comes in as {@code nowMs} (the cluster's clock).
 *
 * @param live     live keys (node names) and the id and node id of their holder
 * @param reserved departed names and the id kept for them until a deadline
 */
public record IdAssignment(SortedMap<String, Claim> live, SortedMap<String, Reservation> reserved) {
  /** No member, no reservation. */
  public static final IdAssignment EMPTY = new IdAssignment(new TreeMap<>(), new TreeMap<>());

  /** Separates a duplicate member's name from its node id in its key. */
  static final char DUPLICATE = '#';

  public IdAssignment {
    live = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(live));
    reserved = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(reserved));
  }

  /** A live member's id and the node (Vert.x node id) holding it. */
  public record Claim(int id, String nodeId) {
  }

  /** A departed name's id, kept for it until {@code untilMs} (cluster clock). */
  public record Reservation(int id, long untilMs) {
  }

  /** A live cluster member: its node id (unique) and its node name (meant to be unique). */
  public record Member(String nodeId, String name) {
  }

  /** The number of clients: live members plus reservations. */
  public int count() {
    return live.size() + reserved.size();
  }

  /** The id of the member with {@code nodeId}, if it holds one. */
  public OptionalInt idOf(String nodeId) {
    return live.values().stream().filter(c -> c.nodeId().equals(nodeId)).mapToInt(Claim::id).findFirst();
  }

  /** The earliest reservation deadline, when {@link #next} has something to compact. */
  public OptionalLong nextExpiry() {
    return reserved.values().stream().mapToLong(Reservation::untilMs).min();
  }

  /**
   * The assignment for the live {@code members} at {@code nowMs}; {@code this} if nothing
   * changes.
   *
   * @param graceMs how long a departed name's id stays reserved (0: released at once)
   */
  public IdAssignment next(Collection<Member> members, long nowMs, long graceMs) {
    Map<String, Member> keyed = keys(members);
    TreeMap<String, Integer> ids = new TreeMap<>();
    TreeMap<String, Reservation> holds = new TreeMap<>();
    reserved.forEach((key, r) -> {
      if (r.untilMs() > nowMs) {
        holds.put(key, r);
      }
    });
    List<String> fresh = new ArrayList<>();
    for (String key : keyed.keySet()) {
      if (live.containsKey(key)) {
        ids.put(key, live.get(key).id());
      } else if (holds.containsKey(key)) {
        ids.put(key, holds.remove(key).id());
      } else {
        fresh.add(key);
      }
    }
    live.forEach((key, claim) -> {
      if (!keyed.containsKey(key) && graceMs > 0 && !isDuplicate(key)) {
        holds.put(key, new Reservation(claim.id(), nowMs + graceMs));
      }
    });
    int n = keyed.size() + holds.size();
    TreeSet<Integer> free = new TreeSet<>();
    for (int i = 0; i < n; i++) {
      free.add(i);
    }
    ids.values().forEach(free::remove);
    holds.values().forEach(r -> free.remove(r.id()));
    List<Map.Entry<String, Integer>> movers = new ArrayList<>();
    ids.entrySet().stream().filter(e -> e.getValue() >= n).forEach(movers::add);
    holds.forEach((key, r) -> {
      if (r.id() >= n) {
        movers.add(Map.entry(key, r.id()));
      }
    });
    movers.sort(Map.Entry.<String, Integer>comparingByValue().reversed());
    for (Map.Entry<String, Integer> m : movers) {
      int to = free.pollFirst();
      if (ids.containsKey(m.getKey())) {
        ids.put(m.getKey(), to);
      } else {
        holds.put(m.getKey(), new Reservation(to, holds.get(m.getKey()).untilMs()));
      }
    }
    fresh.forEach(key -> ids.put(key, free.pollFirst()));
    TreeMap<String, Claim> claims = new TreeMap<>();
    ids.forEach((key, id) -> claims.put(key, new Claim(id, keyed.get(key).nodeId())));
    IdAssignment next = new IdAssignment(claims, holds);
    return next.equals(this) ? this : next;
  }

  /** Each member's key: its name, or {@code name#nodeId} for the second holder of a name. */
  private Map<String, Member> keys(Collection<Member> members) {
    TreeMap<String, List<Member>> byName = new TreeMap<>();
    members.stream().distinct().forEach(m -> byName.computeIfAbsent(m.name(), k -> new ArrayList<>()).add(m));
    TreeMap<String, Member> keyed = new TreeMap<>();
    byName.forEach((name, group) -> {
      Claim holder = live.get(name);
      group.sort(Comparator.comparing((Member m) -> holder == null || !holder.nodeId().equals(m.nodeId()))
          .thenComparing(Member::nodeId));
      keyed.put(name, group.get(0));
      group.subList(1, group.size()).forEach(m -> keyed.put(name + DUPLICATE + m.nodeId(), m));
    });
    return keyed;
  }

  /** Whether {@code key} is a duplicate member's ({@code name#nodeId}). */
  static boolean isDuplicate(String key) {
    return key.indexOf(DUPLICATE) >= 0;
  }

  /** {@code "a=0 b=1 (c=2 until 30000)"}: the live ids, then the reservations. */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    live.forEach((key, c) -> out.append(out.isEmpty() ? "" : " ").append(key).append('=').append(c.id()));
    reserved.forEach((key, r) -> out.append(out.isEmpty() ? "" : " ").append('(').append(key).append('=')
        .append(r.id()).append(" until ").append(r.untilMs()).append(')'));
    return out.toString();
  }
}
