package dev.fairway.control;

import dev.fairway.balancer.BalancerSnapshot;
import dev.fairway.balancer.Route;
import dev.fairway.config.BackendConfig;
import dev.fairway.config.FairwayConfig;
import dev.fairway.config.ServiceConfig;
import dev.fairway.metrics.FairwayMetrics;
import dev.fairway.slots.EndpointSpec;
import dev.fairway.slots.ServiceSpec;
import dev.fairway.slots.SlotTable;
import dev.fairway.slots.TableView;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The single verticle that owns the backend table: it turns the configuration (and later health,
 * lame-duck and load reports) into the slot table's shape and an immutable
 * {@link BalancerSnapshot}, which it publishes to every proxy verticle.
 *
 * <p>Example: with services {@code a} (b1, b2) and {@code b} (b2), the slot table gets two
 * backends, b2 shared by both services, and the snapshot gets two routes.
 */
public final class BalancerVerticle extends VerticleBase {
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);

  private final SlotTable table;
  private final FairwayMetrics metrics;
  private FairwayConfig config;
  private BalancerSnapshot snapshot = BalancerSnapshot.EMPTY;

  public BalancerVerticle(FairwayConfig config, SlotTable table, FairwayMetrics metrics) {
    this.config = config;
    this.table = table;
    this.metrics = metrics;
  }

  @Override
  public Future<?> start() {
    var bus = vertx.eventBus();
    bus.<Void>localConsumer(Addresses.SNAPSHOT_GET, m -> m.reply(snapshot, LOCAL));
    bus.<Void>localConsumer(Addresses.SERVICES, m -> m.reply(servicesJson()));
    applyConfig();
    return Future.succeededFuture();
  }

  private void applyConfig() {
    Map<String, BackendConfig> backends = new LinkedHashMap<>();
    List<ServiceSpec> services = new ArrayList<>();
    for (ServiceConfig s : config.services()) {
      List<String> ids = new ArrayList<>();
      for (BackendConfig b : s.backends()) {
        backends.putIfAbsent(b.id(), b);
        ids.add(b.id());
      }
      services.add(new ServiceSpec(s.name(), s.strategy(), s.slots().maxWaiting(), s.slots().maxActive(), ids));
    }
    List<EndpointSpec> endpoints = new ArrayList<>();
    for (BackendConfig b : backends.values()) {
      endpoints.add(new EndpointSpec(b.id(), b.host(), b.port(), b.capacity(), b.weight(), true));
    }
    table.apply(endpoints, services, System.nanoTime());
    metrics.syncTopology(backends.keySet(), services.stream().map(ServiceSpec::name).collect(Collectors.toSet()));
    List<Route> routes = new ArrayList<>();
    for (ServiceConfig s : config.services()) {
      routes.add(new Route(s.name(), s.match(), s.timeouts(), s.slots().waitTimeoutMs(), table.service(s.name())));
    }
    publish(new BalancerSnapshot(snapshot.version() + 1, routes));
  }

  private void publish(BalancerSnapshot next) {
    snapshot = next;
    vertx.eventBus().publish(Addresses.SNAPSHOT, next, LOCAL);
  }

  private JsonArray servicesJson() {
    TableView view = table.view();
    JsonArray out = new JsonArray();
    for (ServiceConfig s : config.services()) {
      TableView.ServiceCounts sc = view.services().get(s.name());
      JsonArray backends = new JsonArray();
      for (BackendConfig b : s.backends()) {
        TableView.EndpointCounts ec = view.endpoints().get(b.id());
        backends.add(new JsonObject()
            .put("id", b.id())
            .put("url", b.url())
            .put("state", "healthy")
            .put("inSubset", true)
            .put("active", ec == null ? 0 : ec.active())
            .put("capacity", ec == null ? b.capacity() : ec.capacity())
            .put("weight", b.weight())
            .put("utilization", 0.0)
            .put("qps", 0.0)
            .put("eps", 0.0)
            .put("latencyMs", 0.0));
      }
      out.add(new JsonObject()
          .put("name", s.name())
          .put("strategy", s.strategy().configName())
          .put("waiting", sc == null ? 0 : sc.waiting())
          .put("active", sc == null ? 0 : sc.active())
          .put("backends", backends));
    }
    return out;
  }
}
