package dev.fairway.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * {@code fairway_backend_source}: one gauge of value 1 per backend of a service, labelled with where
 * the backend comes from.
 *
 * <p>Example: after {@code sync([Row(api, api-10.0.0.7-8080, dns:A api.internal), Row(api, b1, config)])}
 * a scrape shows {@code fairway_backend_source{backend="api-10.0.0.7-8080",service="api",source="dns:A api.internal"} 1.0}
 * and {@code fairway_backend_source{backend="b1",service="api",source="config"} 1.0}; a row missing
 * from a later sync loses its gauge.
 */
public final class BackendSources {
  private final MeterRegistry registry;
  private final Map<Row, Meter> gauges = new HashMap<>();

  /**
   * One backend of one service and its source.
   *
   * @param service service name
   * @param backend backend id
   * @param source  {@code config}, {@code api} or e.g. {@code dns:SRV _api._tcp.example}
   */
  public record Row(String service, String backend, String source) {
  }

  public BackendSources(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Registers the new rows' gauges and removes those of rows no longer present. */
  public synchronized void sync(Collection<Row> rows) {
    Set<Row> now = new HashSet<>(rows);
    for (Row r : now) {
      gauges.computeIfAbsent(r, k -> Gauge.builder("fairway_backend_source", () -> 1)
          .description("1 for each backend of a service; source tells where it comes from (config, api, dns:...)")
          .tag("service", k.service()).tag("backend", k.backend()).tag("source", k.source()).register(registry));
    }
    for (Row r : new HashSet<>(gauges.keySet())) {
      if (!now.contains(r)) {
        registry.remove(gauges.remove(r));
      }
    }
  }
}
