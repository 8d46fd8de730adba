package dev.fairway.control;

import dev.fairway.config.ServiceConfig;
import dev.fairway.config.SplitTarget;
import dev.fairway.slots.TableView;
import dev.fairway.table.BackendTable;
import dev.fairway.table.BackendView;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * The admin API's JSON of the backend table ({@code GET /api/services} and the answers to
 * commands), with the slot table's live counts.
 *
 * <p>Example: b1 with two requests in flight of three, in the subset, gives
 * {@code {"id":"b1","url":"http://127.0.0.1:9001","state":"healthy","reason":"...","inSubset":true,
 * "active":2,"capacity":3,"weight":1.0,"utilization":0.0,"qps":12.5,"eps":0.0,"latencyMs":3.1}}. A
 * backend standing in for an unavailable subset member of the service adds
 * {@code "standsInFor":"b3"} (its {@code inSubset} stays false). A service that splits its requests
 * adds {@code "split":[{"service":"v1","weight":95},{"service":"v2","weight":5}]}.
 */
final class TableJson {
  private TableJson() {
  }

  /**
   * Every service with its backends, in config order; {@code panic} tells whether it spreads over
   * all of its backends now, its subset having too few healthy ones.
   */
  static JsonArray services(BackendTable table, TableView view) {
    JsonArray out = new JsonArray();
    for (ServiceConfig s : table.services()) {
      TableView.ServiceCounts sc = view.services().get(s.name());
      JsonArray list = new JsonArray();
      for (String id : table.members(s.name())) {
        JsonObject b = backend(table, id, s.name(), view);
        if (b != null) {
          list.add(b);
        }
      }
      JsonObject service = new JsonObject()
          .put("name", s.name())
          .put("strategy", s.strategy().configName())
          .put("waiting", sc == null ? 0 : sc.waiting())
          .put("active", sc == null ? 0 : sc.active())
          .put("panic", table.panicking(s.name()))
          .put("clientId", table.clientId())
          .put("clientCount", table.clientCount())
          .put("configVersion", table.configVersion())
          .put("configHash", table.configHash())
          .put("backends", list);
      out.add(s.split().isEmpty() ? service : service.put("split", split(s)));
    }
    return out;
  }

  /** A split service's targets: {@code [{"service":"v1","weight":95}, ...]}. */
  private static JsonArray split(ServiceConfig s) {
    JsonArray targets = new JsonArray();
    for (SplitTarget t : s.split()) {
      targets.add(new JsonObject().put("service", t.service()).put("weight", t.weight()));
    }
    return targets;
  }

  /**
   * One backend, or {@code null} if the table does not know it.
   *
   * @param service whose subset {@code inSubset} is about; {@code null} for any service's
   */
  static JsonObject backend(BackendTable table, String id, String service, TableView view) {
    BackendView e = table.backend(id);
    if (e == null) {
      return null;
    }
    TableView.EndpointCounts c = view.endpoints().get(id);
    boolean inSubset = service == null ? e.inAnySubset() : table.inSubset(service, id);
    String standsInFor = service == null ? null : table.standsInFor(service, id);
    JsonObject out = new JsonObject()
        .put("id", e.id())
        .put("url", e.url())
        .put("state", e.state().jsonName())
        .put("reason", e.reason())
        .put("inSubset", inSubset)
        .put("active", c == null ? 0 : c.active())
        .put("capacity", c == null ? e.capacity() : c.capacity())
        .put("weight", round(e.weight()))
        .put("utilization", e.utilization())
        .put("qps", round(e.qps()))
        .put("eps", round(e.eps()))
        .put("latencyMs", round(e.latencyMs()));
    return standsInFor == null ? out : out.put("standsInFor", standsInFor);
  }

  /**
   * Adds each backend's {@code share} (cluster mode's shared capacity: the part of its capacity
   * this member may use now) to {@link #services}' output; {@code shares} {@code null} (capacity
   * not shared) leaves it as it is.
   */
  static JsonArray withShares(JsonArray services, Map<String, Integer> shares) {
    if (shares != null) {
      for (Object s : services) {
        for (Object b : ((JsonObject) s).getJsonArray("backends")) {
          JsonObject backend = (JsonObject) b;
          backend.put("share", shares.getOrDefault(backend.getString("id"), 0));
        }
      }
    }
    return services;
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }
}
