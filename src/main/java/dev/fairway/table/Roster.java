package dev.fairway.table;

import dev.fairway.config.BackendConfig;
import dev.fairway.config.ConfigException;
import dev.fairway.config.ConfigParser;
import dev.fairway.config.FairwayConfig;
import dev.fairway.config.ServiceConfig;
import dev.fairway.health.BackendStatus;
import dev.fairway.health.HealthThresholds;
import dev.fairway.health.Transition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Which backends exist and which services list them: the config's, as reloaded, and those added
 * through the API. Part of {@link BackendTable}; not thread-safe.
 *
 * <p>Example: service {@code api} lists b1 and b2 in the file and b3 by API. A reload whose file
 * lists b1 alone makes {@code api = [b2, b1, b3]} with b2 draining (a draining backend is listed
 * first), and {@code [b1, b3]} once b2 is {@link #forget forgotten}; a backend listed by two
 * services drains only once neither lists it.
 */
final class Roster {
  final Map<String, Backend> backends = new LinkedHashMap<>();
  final Map<String, ServiceConfig> services = new LinkedHashMap<>();
  final Map<String, List<String>> members = new LinkedHashMap<>();
  /** Backends added through the API, per service: kept across reloads unless the file names them. */
  private final Map<String, Map<String, BackendConfig>> apiAdded = new LinkedHashMap<>();
  private final RandomGenerator random;
  private final TableListener listener;
  private final Transitions transition;

  /** Applies a state change of a backend: reports it and publishes, if present. */
  interface Transitions {
    void apply(Backend backend, Optional<Transition> transition, long nowNanos);
  }

  Roster(RandomGenerator random, TableListener listener, Transitions transition) {
    this.random = random;
    this.listener = listener;
    this.transition = transition;
  }

  /** The config given at start-up: its backends count as healthy until their first checks. */
  void load(FairwayConfig config) {
    for (ServiceConfig s : config.services()) {
      services.put(s.name(), s);
      List<String> ids = new ArrayList<>();
      for (BackendConfig b : s.backends()) {
        ids.add(b.id());
        add(b, s, true).services.add(s.name());
      }
      members.put(s.name(), ids);
    }
  }

  /**
   * Makes the services and their backends those of {@code next} (plus the API's).
   *
   * @return backends added, changed in place, and set draining
   */
  int[] reload(FairwayConfig next, long nowNanos) {
    int[] counts = new int[3];
    Map<String, ServiceConfig> nextServices = new LinkedHashMap<>();
    next.services().forEach(s -> nextServices.put(s.name(), s));
    for (String name : new ArrayList<>(services.keySet())) {
      if (!nextServices.containsKey(name)) {
        for (String id : new ArrayList<>(members.get(name))) {
          counts[2] += detach(name, id, "service " + name + " left the config", nowNanos) ? 1 : 0;
        }
        services.remove(name);
        members.remove(name);
        apiAdded.remove(name);
      }
    }
    for (ServiceConfig s : next.services()) {
      reloadService(s, counts, nowNanos);
    }
    return counts;
  }

  private void reloadService(ServiceConfig s, int[] counts, long nowNanos) {
    services.put(s.name(), s);
    Map<String, BackendConfig> wanted = new LinkedHashMap<>();
    s.backends().forEach(b -> wanted.put(b.id(), b));
    apiAdded.getOrDefault(s.name(), Map.of()).forEach(wanted::putIfAbsent);
    List<String> ids = members.computeIfAbsent(s.name(), k -> new ArrayList<>());
    for (String id : new ArrayList<>(ids)) {
      if (!wanted.containsKey(id)) {
        counts[2] += detach(s.name(), id, "left service " + s.name() + " in the config", nowNanos) ? 1 : 0;
      }
    }
    for (BackendConfig b : wanted.values()) {
      Backend e = backends.get(b.id());
      if (e != null && (e.status.draining() || !e.config.url().equals(b.url()))) {
        forget(e, "replaced by the new config");
        e = null;
      }
      if (e == null) {
        e = add(b, s, false);
        counts[0]++;
      } else if (!e.config.equals(b) || !e.healthCheck.equals(s.healthCheck()) || !e.tls.equals(s.tls())) {
        e.config = b;
        e.healthCheck = s.healthCheck();
        e.tls = s.tls();
        counts[1]++;
      }
      e.services.add(s.name());
      if (!ids.contains(b.id())) {
        ids.add(b.id());
      }
    }
    ids.sort(Comparator.comparingInt(new ArrayList<>(wanted.keySet())::indexOf));
  }

  /**
   * Takes a backend out of one service; once no service lists it, it stays listed as draining
   * until its last request ends and then goes.
   *
   * @return whether it began to drain
   */
  private boolean detach(String service, String id, String why, long nowNanos) {
    Backend e = backends.get(id);
    List<String> ids = members.get(service);
    if (ids != null) {
      ids.remove(id);
    }
    if (e == null) {
      return false;
    }
    e.services.remove(service);
    if (e.services.isEmpty()) {
      if (ids != null) {
        ids.add(id);
      }
      transition.apply(e, e.status.drain(why), nowNanos);
      return true;
    }
    return false;
  }

  /**
   * The backend of that id, created if new: a backend of the start-up config is healthy and first
   * checked at a random time within one interval, a later one unhealthy and checked at once (each
   * once it is watched, see {@link Panic}).
   */
  private Backend add(BackendConfig b, ServiceConfig service, boolean atStartUp) {
    Backend entry = backends.get(b.id());
    if (entry == null) {
      entry = new Backend(b, service.healthCheck(), service.tls(), service.balancing(),
          new BackendStatus(b.id(), HealthThresholds.of(service.healthCheck()), atStartUp));
      backends.put(b.id(), entry);
      long interval = service.healthCheck().intervalMs();
      entry.firstCheckMs = atStartUp ? random.nextLong(1, Math.max(2, interval)) : 1;
    }
    return entry;
  }

  /** Removes a backend from the table and from every service. */
  void forget(Backend e, String why) {
    backends.remove(e.id());
    members.values().forEach(ids -> ids.remove(e.id()));
    listener.removed(e.id(), why);
  }

  /** See {@link BackendTable#addBackends}. */
  BackendsAdded addBackends(String service, Object body) {
    ServiceConfig s = services.get(service);
    if (s == null) {
      throw new CommandRejected(404, "unknown service " + service);
    }
    if (!s.split().isEmpty()) {
      throw new CommandRejected(400, "service " + service + " splits its requests between other services and takes "
          + "no backends; expected one of its split targets");
    }
    List<BackendConfig> added;
    try {
      added = ConfigParser.parseBackends(body, s.slots().capacity());
    } catch (ConfigException e) {
      throw new CommandRejected(400, String.join("; ", e.problems()));
    }
    for (int i = 0; i < added.size(); i++) {
      Backend existing = backends.get(added.get(i).id());
      if (existing != null && !existing.config.url().equals(added.get(i).url())) {
        throw new CommandRejected(400, "[" + i + "].id: \"" + existing.id() + "\" already names "
            + existing.config.url() + "; expected a new id or the same url");
      }
    }
    List<String> ids = members.get(service);
    boolean created = false;
    for (BackendConfig b : added) {
      Backend existing = backends.get(b.id());
      if (existing == null) {
        created = true;
        listener.note("backend " + b.id() + " (" + b.url() + ") added to service " + service
            + " by API; it serves once a health check passes");
      } else if (!existing.config.equals(b)) {
        listener.note("backend " + b.id() + " updated by API: capacity " + existing.config.capacity() + " -> "
            + b.capacity() + ", weight " + existing.config.weight() + " -> " + b.weight());
        existing.config = b;
      }
      add(b, s, false).services.add(service);
      apiAdded.computeIfAbsent(service, k -> new LinkedHashMap<>()).put(b.id(), b);
      if (!ids.contains(b.id())) {
        ids.add(b.id());
      }
    }
    return new BackendsAdded(added.stream().map(BackendConfig::id).toList(), created);
  }

  /**
   * See {@link BackendTable#removeBackend}.
   *
   * @return whether the table must publish (the backend left one service and serves others)
   */
  boolean removeBackend(String service, String id, long nowNanos) {
    List<String> ids = members.get(service);
    if (ids == null) {
      throw new CommandRejected(404, "unknown service " + service);
    }
    Backend e = backends.get(id);
    if (e == null || !ids.contains(id)) {
      throw new CommandRejected(404, "unknown backend id " + id + " in service " + service);
    }
    e.services.remove(service);
    apiAdded.getOrDefault(service, new LinkedHashMap<>()).remove(id);
    if (e.services.isEmpty()) {
      transition.apply(e, e.status.drain("removed from service " + service + " by API"), nowNanos);
      return false;
    }
    ids.remove(id);
    listener.note("backend " + id + " removed from service " + service + " by API");
    return true;
  }
}
