package dev.fairway.control;

import dev.fairway.config.ServiceConfig;
import dev.fairway.discovery.Discovered;
import dev.fairway.health.BackendState;
import dev.fairway.metrics.BackendSources;
import dev.fairway.table.BackendTable;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The balancer's {@link DnsWatch}es, one per service with {@code discovery}, kept in step with the
 * config, and the source of each backend: {@code config}, {@code api} or its discovery's.
 *
 * <p>Example: a reload that changes service {@code api}'s {@code discovery.name} replaces its
 * watch; the new one starts from the backends the old one found, so its first answer drains those
 * the new name does not give. A reload that drops {@code discovery} removes them all. In
 * {@code GET /api/services} a backend listed in the file shows {@code "source":"config"}, one
 * added through {@code POST /api/services/api/backends} {@code "api"}, a discovered one e.g.
 * {@code "dns:A api.internal"}.
 */
final class DnsDiscoveries {
  private final Vertx vertx;
  private final Consumer<BalancerCommand> apply;
  private final BiFunction<String, String, BackendState> state;
  private final Map<String, DnsWatch> watches = new HashMap<>();
  private final Map<String, ServiceConfig> services = new LinkedHashMap<>();
  private final BackendSources sources;

  /**
   * @param apply runs a command on this member's balancer, never relayed
   * @param state the state of a backend in a service, {@code null} if the service does not list it
   */
  DnsDiscoveries(Vertx vertx, Consumer<BalancerCommand> apply, BiFunction<String, String, BackendState> state,
                 BackendSources sources) {
    this.vertx = vertx;
    this.sources = sources;
    this.apply = apply;
    this.state = state;
  }

  /** Starts, replaces and stops watches so that they match {@code next}, after the table took it. */
  void reconcile(Collection<ServiceConfig> next) {
    services.clear();
    next.forEach(s -> services.put(s.name(), s));
    for (String name : new ArrayList<>(watches.keySet())) {
      ServiceConfig s = services.get(name);
      if (s == null || !s.discovery().equals(watches.get(name).discovery())) {
        DnsWatch old = watches.remove(name);
        old.stop();
        if (s != null && s.discovery().enabled()) {
          start(s, old.discovered());
        } else if (s != null) {
          old.discovered().keySet().stream().filter(id -> state.apply(name, id) != null)
              .forEach(id -> apply.accept(new BalancerCommand.RemoveBackend(name, id)));
        }
      }
    }
    for (ServiceConfig s : next) {
      if (s.discovery().enabled() && !watches.containsKey(s.name())) {
        start(s, Map.of());
      }
    }
  }

  private void start(ServiceConfig s, Map<String, Discovered> inherited) {
    DnsWatch w = new DnsWatch(vertx, s.name(), s.discovery(), apply, state, inherited);
    watches.put(s.name(), w);
    w.start();
  }

  void stop() {
    watches.values().forEach(DnsWatch::stop);
    watches.clear();
  }

  /** Where a backend of a service comes from: {@code config}, its discovery's source, or {@code api}. */
  String source(String service, String id) {
    ServiceConfig s = services.get(service);
    if (s != null && s.backends().stream().anyMatch(b -> b.id().equals(id))) {
      return "config";
    }
    DnsWatch w = watches.get(service);
    return w != null && w.discovered().containsKey(id) ? w.discovery().source() : "api";
  }

  /** Adds {@code source} to each backend of {@code GET /api/services}' array. */
  JsonArray withSources(JsonArray servicesJson) {
    for (Object s : servicesJson) {
      String service = ((JsonObject) s).getString("name");
      for (Object b : ((JsonObject) s).getJsonArray("backends")) {
        ((JsonObject) b).put("source", source(service, ((JsonObject) b).getString("id")));
      }
    }
    return servicesJson;
  }

  /** Sets {@code fairway_backend_source}: each backend of each service with its source. */
  void publishSources(BackendTable table) {
    List<BackendSources.Row> rows = new ArrayList<>();
    for (String service : table.serviceNames()) {
      table.members(service).forEach(id -> rows.add(new BackendSources.Row(service, id, source(service, id))));
    }
    sources.sync(rows);
  }
}
