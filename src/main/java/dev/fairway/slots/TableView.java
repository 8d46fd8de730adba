package dev.fairway.slots;

import java.util.Map;

/**
 * A consistent copy of the slot table's counters, for the admin API and metrics.
 *
 * <p>Example: {@code view.endpoints().get("b1")} is {@code EndpointCounts[active=2, capacity=3, held=false, holds=0]}.
 *
 * @param endpoints per backend id
 * @param services  per service name
 */
public record TableView(Map<String, EndpointCounts> endpoints, Map<String, ServiceCounts> services) {
  public TableView {
    endpoints = Map.copyOf(endpoints);
    services = Map.copyOf(services);
  }

  /**
   * @param active   requests in flight
   * @param capacity on-proxy capacity
   * @param held     whether this process holds the backend back after a run of failures
   * @param holds    how often this process has held it back so far
   */
  public record EndpointCounts(int active, int capacity, boolean held, long holds) {
  }

  /** @param active requests in flight @param waiting requests waiting for a slot */
  public record ServiceCounts(int active, int waiting) {
  }
}
