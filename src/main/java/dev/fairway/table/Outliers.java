package dev.fairway.table;

import dev.fairway.balancer.Observation;
import dev.fairway.config.ServiceConfig;
import dev.fairway.health.OutlierDetector;
import dev.fairway.health.OutlierEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Passive ejection for the table: one {@link OutlierDetector} per service, with the service's
 * {@code outlierDetection} settings, over its members, its share counted in its subset. Part of
 * {@link BackendTable}; not thread-safe.
 *
 * <p>Example: services {@code a} ({@code consecutive5xx: 3}) and {@code b} (default 5) both list
 * b1. Every observation of b1 goes to both detectors; after three 5xx in a row {@code a}'s ejects
 * it, and b1's one status reads {@code ejected} ({@code service a: 3 consecutive 5xx; ejected for
 * 30 s (ejection 1)}) for both services, since a backend has one state. It stays ejected while any
 * detector holds it ejected, and only if every service listing it can spare it (its share, and
 * another usable member). A passing health check ends its ejections in every detector.
 *
 * <p>On a reload a service whose settings changed gets a new detector that keeps its members'
 * ejections (their end and count); runs and success rates start again. A backend whose only
 * ejecting detector went (its service left, or it left the service) leaves the ejected state and
 * waits for a passing health check; a backend replaced under its id (a new URL) starts clean.
 */
final class Outliers {
  private final Map<String, Backend> backends;
  private final TableListener listener;
  private final Roster.Transitions transition;
  /** Has a backend that waits for a passing check checked at once. */
  private final Consumer<Backend> checkNow;
  private final Map<String, OutlierDetector> byService = new LinkedHashMap<>();

  Outliers(Map<String, Backend> backends, TableListener listener, Roster.Transitions transition,
           Consumer<Backend> checkNow) {
    this.backends = backends;
    this.listener = listener;
    this.transition = transition;
    this.checkNow = checkNow;
  }

  /**
   * One detector per service of {@code services}, over its {@code members}, its share counted in
   * its {@code subsets} entry; a backend no detector ejects any more leaves the ejected state.
   */
  void arrange(Collection<ServiceConfig> services, Map<String, List<String>> members, Map<String, Set<String>> subsets) {
    Map<String, OutlierDetector> next = new LinkedHashMap<>();
    for (ServiceConfig s : services) {
      OutlierDetector d = byService.get(s.name());
      if (d == null) {
        d = new OutlierDetector(s.outlierDetection());
      } else if (!d.settings().equals(s.outlierDetection())) {
        d = d.reconfigured(s.outlierDetection());
      }
      List<String> ids = members.getOrDefault(s.name(), List.of());
      d.setMembers(ids);
      for (String id : ids) {
        Backend b = backends.get(id);
        if (d.ejected(id) && b != null && !b.status.ejected()) {
          d.restart(id); // a new backend under the id (its URL changed): its state is new too
        }
      }
      d.setGroup(subsets.getOrDefault(s.name(), Set.of()));
      next.put(s.name(), d);
    }
    byService.clear();
    byService.putAll(next);
    for (Backend e : backends.values()) {
      if (e.status.ejected() && !ejectedAnywhere(e.id())) {
        // ejected -> unhealthy at most: it stays unavailable, so the layout stands
        e.status.endEjection("no service's outlier detection ejects it any more")
            .ifPresent(t -> listener.transitioned(e.id(), t));
        checkNow.accept(e);
      }
    }
  }

  private boolean ejectedAnywhere(String id) {
    for (OutlierDetector d : byService.values()) {
      if (d.ejected(id)) {
        return true;
      }
    }
    return false;
  }

  /** One period's requests to {@code e}: each of its services' detectors sees them. */
  void observe(Observation o, Backend e, long nowNanos) {
    List<String> by = new ArrayList<>();
    List<OutlierEvent> events = new ArrayList<>();
    for (String service : e.services) {
      OutlierDetector d = byService.get(service);
      if (d != null) {
        d.observe(o, nowNanos, peers(service)).ifPresent(ev -> {
          by.add(service);
          events.add(ev);
        });
      }
    }
    for (int i = 0; i < events.size(); i++) {
      transition.apply(e, e.status.eject("service " + by.get(i) + ": " + events.get(i).reason()), nowNanos);
    }
  }

  /** Success-rate ejection of every service whose interval has passed. */
  void evaluate(long nowNanos) {
    for (String service : new ArrayList<>(byService.keySet())) {
      OutlierDetector d = byService.get(service);
      for (OutlierEvent ev : d == null ? List.<OutlierEvent>of() : d.evaluate(nowNanos, peers(service))) {
        Backend e = backends.get(ev.backendId());
        if (e != null) {
          transition.apply(e, e.status.eject("service " + service + ": " + ev.reason()), nowNanos);
        }
      }
    }
  }

  /**
   * What {@code service}'s detector needs to know: backends' states, and whether the other
   * services listing a backend can spare it.
   */
  private OutlierDetector.Peers peers(String service) {
    return new OutlierDetector.Peers() {
      @Override
      public boolean usable(String id) {
        Backend b = backends.get(id);
        return b != null && b.status.available();
      }

      @Override
      public boolean ejectedElsewhere(String id) {
        Backend b = backends.get(id);
        return b != null && b.status.ejected();
      }

      @Override
      public boolean allowedElsewhere(String id) {
        Backend b = backends.get(id);
        if (b == null) {
          return false;
        }
        for (String other : b.services) {
          OutlierDetector d = other.equals(service) ? null : byService.get(other);
          if (d != null && !d.canSpare(id, this)) {
            return false;
          }
        }
        return true;
      }
    };
  }

  /** A health check of {@code e} passed: its ejections end in every detector. */
  void endEarly(Backend e, long nowNanos) {
    Optional<OutlierEvent> ended = Optional.empty();
    for (OutlierDetector d : byService.values()) {
      Optional<OutlierEvent> ev = d.endEarly(e.id(), nowNanos);
      ended = ended.or(() -> ev);
    }
    ended.ifPresent(ev -> transition.apply(e, e.status.endEjection(ev.reason()), nowNanos));
  }

  /** When the earliest ejection of any service ends. */
  OptionalLong nextReturnNanos() {
    OptionalLong next = OptionalLong.empty();
    for (OutlierDetector d : byService.values()) {
      OptionalLong n = d.nextReturnNanos();
      if (n.isPresent() && (next.isEmpty() || n.getAsLong() - next.getAsLong() < 0)) {
        next = n;
      }
    }
    return next;
  }

  /**
   * Ends the ejections whose time has come; a backend no other detector still ejects leaves the
   * ejected state and is checked at once.
   */
  void endEjections(long nowNanos) {
    Map<String, String> due = new LinkedHashMap<>();
    byService.forEach((service, d) -> d.returnDue(nowNanos)
        .forEach(ev -> due.putIfAbsent(ev.backendId(), "service " + service + ": " + ev.reason())));
    due.forEach((id, reason) -> {
      Backend e = backends.get(id);
      if (e != null && e.status.ejected() && !ejectedAnywhere(id)) {
        transition.apply(e, e.status.endEjection(reason), nowNanos);
        checkNow.accept(e);
      }
    });
  }
}
