package dev.fairway.slots;

import dev.fairway.balancer.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The shares of each backend's capacity that this process may use when the capacity is the
 * whole cluster's (cluster mode's shared capacity), kept across the balancer's applies.
 *
 * <p>Example: {@code set({b1=14})} on a table whose b1 has capacity 20 limits b1 to 14 slots here;
 * a backend with no share yet (one the balancer just added) gets 0 until the next lease round
 * names it. {@link #demand} of b1 with 14 in flight and 9 waiting in its only service is 23.
 *
 * <p>Used under the {@link SlotTable}'s lock.
 */
final class Shares {
  private final Map<String, Integer> byId = new HashMap<>();
  private Runnable onUseChanged = () -> { };
  private Set<String> used = Set.of();

  /** {@code r} is called (under the table's lock: it must only hand work off) when the backends in use change. */
  void onUseChanged(Runnable r) {
    onUseChanged = r;
  }

  /**
   * Notes the backends some service uses after an apply; when they changed (a new subset, a
   * replacement, a backend added), asks for a lease round at once rather than at the next interval.
   */
  void noteUse(Map<Endpoint, List<ServiceSlots>> servicesOf) {
    Set<String> next = new HashSet<>();
    servicesOf.keySet().forEach(e -> next.add(e.id()));
    if (!next.equals(used)) {
      used = next;
      onUseChanged.run();
    }
  }

  /** Gives every endpoint its share (0 when none is known yet); after the balancer's apply. */
  void applyTo(Map<String, Endpoint> endpoints) {
    endpoints.forEach((id, e) -> e.setShare(byId.getOrDefault(id, 0)));
  }

  /** Takes new shares; returns the endpoints whose share changed. */
  List<Endpoint> set(Map<String, Integer> next, Map<String, Endpoint> endpoints) {
    byId.clear();
    byId.putAll(next);
    List<Endpoint> changed = new ArrayList<>();
    endpoints.forEach((id, e) -> {
      int share = byId.getOrDefault(id, 0);
      if (share != e.share()) {
        e.setShare(share);
        changed.add(e);
      }
    });
    return changed;
  }

  /** The share of each endpoint in the table. */
  static Map<String, Integer> of(Map<String, Endpoint> endpoints) {
    Map<String, Integer> out = new LinkedHashMap<>();
    endpoints.forEach((id, e) -> out.put(id, e.share()));
    return out;
  }

  /**
   * What each backend that a service here uses (in its subset) is asked for now: its requests in
   * flight here, plus each service's waiters spread evenly over the service's members (rounded up).
   * Backends no service here uses are left out.
   */
  static Map<String, Integer> demand(Map<String, Endpoint> endpoints, Map<Endpoint, List<ServiceSlots>> servicesOf) {
    Map<String, Integer> out = new LinkedHashMap<>();
    endpoints.forEach((id, e) -> {
      List<ServiceSlots> using = servicesOf.getOrDefault(e, List.of());
      if (using.isEmpty()) {
        return;
      }
      int d = e.active();
      for (ServiceSlots s : using) {
        int n = Math.max(1, s.members.size());
        d += (s.waiting + n - 1) / n;
      }
      out.put(id, d);
    });
    return out;
  }
}
