package dev.fairway.table;

import dev.fairway.config.ServiceConfig;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Replacement on failure: while a subset member is unavailable (unhealthy, lame duck, ejected or
 * draining), the next backend by the subsetter's deterministic order stands in for it, so that the
 * usable subset stays full. Part of {@link BackendTable}; not thread-safe.
 *
 * <p>Example: service {@code a}, subset {@code [b2, b6, b7]}, order {@code [b9, b1, b4, ...]}.
 * b6 turns lame duck: one member missing, so the next two candidates, b9 and b1, are checked
 * (missing plus one, the spare ready should a replacement fail). b9's first check passes: {@code
 * service a: b6 lame duck, b9 stands in (next by subset order)}, and {@code a} routes over b2, b7
 * and b9. b9 turns unhealthy: b1 (known healthy) stands in. b6 is healthy again: b1 leaves, its
 * in-flight requests finish, and the candidates' checks stop.
 *
 * <p>Rules. A candidate is usable once this proxy watches it and its health is known: a backend
 * outside every subset comes into watch as unknown (unhealthy, checked at once; see {@link Panic})
 * and becomes usable when that check passes. Candidates are considered only in a window: those in
 * use plus the next ones by order, lame duck, ejected and draining ones skipped, up to one more
 * than the members missing; only the window is checked. Going down the window, a known healthy
 * candidate is taken, a failing one is passed over, and an unknown one is waited for, so the
 * choice is the same whichever check answers first. A replacement stays until its member is
 * available again (or leaves the subset), or until it is no longer usable itself; an earlier
 * candidate that recovers does not displace it. When the whole window is down the service keeps
 * fewer members and {@link Panic} applies as before; replacements count as members there, so a
 * service panics only when too few replacements can be found.
 */
final class Replacements {
  private final TableListener listener;
  /** Per service, member to the backend standing in for it, in the order they were taken. */
  private final Map<String, Map<String, String>> standIns = new LinkedHashMap<>();
  /** Per service, the missing members already reported as having no replacement yet. */
  private final Map<String, Set<String>> reportedShort = new LinkedHashMap<>();
  private final Set<String> watched = new HashSet<>();

  Replacements(TableListener listener) {
    this.listener = listener;
  }

  /**
   * Releases the replacements no longer needed or usable and takes new ones, reporting each change.
   *
   * @param subsets per service, its configured subset
   * @param orders  per service, the candidates outside it, best first
   */
  void update(Collection<ServiceConfig> services, Map<String, Set<String>> subsets, Map<String, List<String>> orders,
              Map<String, Backend> backends) {
    Set<String> names = new HashSet<>();
    watched.clear();
    for (ServiceConfig s : services) {
      names.add(s.name());
      update(s.name(), subsets.get(s.name()), orders.get(s.name()), backends);
    }
    standIns.keySet().retainAll(names);
    reportedShort.keySet().retainAll(names);
  }

  private void update(String service, Set<String> subset, List<String> order, Map<String, Backend> backends) {
    Map<String, String> mine = standIns.computeIfAbsent(service, k -> new LinkedHashMap<>());
    Map<String, String> lost = release(service, mine, subset, order, backends);
    if (order.isEmpty()) {
      return; // the subset holds every backend: nothing can stand in
    }
    List<String> missing = subset.stream().filter(id -> !available(backends.get(id))).sorted().toList();
    List<String> window = new ArrayList<>();
    int room = missing.isEmpty() ? 0 : missing.size() + 1 - mine.size();
    for (String c : order) {
      Backend b = backends.get(c);
      if (window.size() < room && !mine.containsValue(c) && b != null && !b.status.lameDuck()
          && !b.status.ejected() && !b.status.draining()) {
        window.add(c);
      }
    }
    watched.addAll(mine.values());
    watched.addAll(window);
    Set<String> shortOnes = reportedShort.computeIfAbsent(service, k -> new LinkedHashSet<>());
    shortOnes.retainAll(missing);
    int next = 0;
    for (String member : missing) {
      if (mine.containsKey(member)) {
        continue;
      }
      String pick = null;
      while (next < window.size() && pick == null) {
        Backend b = backends.get(window.get(next));
        if (!b.watched || b.unknown) {
          break;
        }
        next++;
        pick = b.status.available() ? b.id() : null;
      }
      String why = lost.containsKey(member)
          ? lost.get(member) + " (standing in for " + member + ") " + word(backends.get(lost.get(member)))
          : member + " " + word(backends.get(member));
      if (pick != null) {
        mine.put(member, pick);
        shortOnes.remove(member);
        listener.note("service " + service + ": " + why + ", " + pick + " stands in"
            + (lost.containsKey(member) ? " for " + member : "") + " (next by subset order)");
      } else if (shortOnes.add(member) || lost.containsKey(member)) {
        listener.note("service " + service + ": " + why + ", no replacement known healthy yet"
            + (window.isEmpty() ? "" : " (checking " + String.join(", ", window) + ")"));
      }
    }
  }

  /** Drops the replacements whose member is back or gone; returns those that went down, by member. */
  private Map<String, String> release(String service, Map<String, String> mine, Set<String> subset, List<String> order,
                                      Map<String, Backend> backends) {
    Map<String, String> lost = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, String>> it = mine.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, String> e = it.next();
      Backend member = backends.get(e.getKey());
      if (!subset.contains(e.getKey()) || available(member)) {
        it.remove();
        listener.note("service " + service + ": " + e.getKey() + (available(member) ? " available again" : " left "
            + "the subset") + ", " + e.getValue() + " leaves (its in-flight requests finish)");
      } else if (!order.contains(e.getValue()) || !available(backends.get(e.getValue()))) {
        it.remove();
        lost.put(e.getKey(), e.getValue());
      }
    }
    return lost;
  }

  private static boolean available(Backend b) {
    return b != null && b.status.available();
  }

  private static String word(Backend b) {
    return b == null ? "gone" : b.status.state().jsonName().replace('-', ' ');
  }

  /** The backends standing in for members of {@code service}. */
  Set<String> of(String service) {
    return Set.copyOf(standIns.getOrDefault(service, Map.of()).values());
  }

  /** How many backends stand in for members of {@code service}. */
  int count(String service) {
    return standIns.getOrDefault(service, Map.of()).size();
  }

  /** The member of {@code service} that {@code id} stands in for, or {@code null}. */
  String standsInFor(String service, String id) {
    for (Map.Entry<String, String> e : standIns.getOrDefault(service, Map.of()).entrySet()) {
      if (e.getValue().equals(id)) {
        return e.getKey();
      }
    }
    return null;
  }

  /** The backends to check for replacements: those in use and the rest of each window (a copy). */
  Set<String> watched() {
    return new HashSet<>(watched);
  }
}
