package dev.fairway.metrics;

import dev.fairway.slots.SlotTable;
import dev.fairway.slots.TableView;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fairway's own meters, labelled only by backend id and service name (bounded cardinality).
 *
 * <p>Example: after {@code syncTopology(Set.of("b1"), Set.of("api"))} the registry has
 * {@code fairway_backend_active{backend="b1"}}, {@code fairway_backend_capacity{backend="b1"}} and
 * {@code fairway_service_waiting{service="api"}}, read live from the slot table, and
 * {@code fairway_service_panic{service="api"}}; a backend or service that leaves the config loses
 * its gauges.
 */
public final class FairwayMetrics {
  private final MeterRegistry registry;
  private final SlotTable table;
  private final Timer clusterDelay;
  private final Map<String, ServiceMeters> services = new ConcurrentHashMap<>();
  private final Map<String, List<Meter>> throttleGauges = new HashMap<>();
  private volatile ThrottleReadings throttleReadings;
  private final Map<String, List<Meter>> backendGauges = new ConcurrentHashMap<>();
  private final Map<String, Meter> serviceGauges = new ConcurrentHashMap<>();
  private final Map<String, Meter> panicGauges = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> panics = new ConcurrentHashMap<>();
  private final Map<String, BackendReadings> readings = new ConcurrentHashMap<>();
  private final Map<String, BackendMeters> backendMeters = new ConcurrentHashMap<>();
  /** The states a backend can report, as in {@code GET /api/services}. */
  private static final List<String> STATES = List.of("healthy", "unhealthy", "lame-duck", "ejected", "draining");

  public FairwayMetrics(MeterRegistry registry, SlotTable table) {
    this.registry = registry;
    this.table = table;
    this.clusterDelay = Timer.builder("fairway_cluster_command_delay")
        .description("From a cluster command's publication on another member to its application here")
        .publishPercentiles(0.5, 0.99).register(registry);
  }

  /** Where the throttle gauges read from (the proxy's board of adaptive throttles). */
  public void throttleReadings(ThrottleReadings readings) {
    this.throttleReadings = readings;
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** The meters of a service, created on first use. */
  public ServiceMeters service(String name) {
    ServiceMeters m = services.get(name);
    return m != null ? m : services.computeIfAbsent(name, this::create);
  }

  private ServiceMeters create(String name) {
    return new ServiceMeters(
        Timer.builder("fairway_slot_wait").description("Wait for a free slot, of requests that had to wait")
            .tag("service", name).publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofMinutes(1)).register(registry),
        counter("fairway_slot_timeouts", name, "Requests that got no slot within waitTimeoutMs"),
        counter("fairway_slot_rejections_queue_full", name, "Requests rejected because maxWaiting requests waited"),
        counter("fairway_slot_rejections_no_backend", name, "Requests rejected because no backend was available"),
        counter("fairway_retries", name, "Tries sent again to another backend (a failed connect, a refused stream, "
            + "or what retry.on names)"),
        counter("fairway_throttled", name, "Requests refused locally by adaptive throttling"),
        counter("fairway_retry_budget_exhausted", name, "Retries not made because the retry budget was spent"),
        counter("fairway_slow_client_slot_releases", name,
            "Responses whose client held them back for slowClientMs, so their slot went back before they ended"),
        counter("fairway_requests_shed", name,
            "Waiting requests refused to make room for a more critical one when maxWaiting were waiting"));
  }

  private Counter counter(String meter, String service, String description) {
    return Counter.builder(meter).description(description).tag("service", service).register(registry);
  }

  /**
   * Records how long a cluster command took from the member that sent it to this member's
   * balancer having applied it ({@code fairway_cluster_command_delay_seconds}, with its median
   * and 99th percentile over the last minutes).
   */
  public void clusterCommandDelay(long micros) {
    clusterDelay.record(micros, TimeUnit.MICROSECONDS);
  }

  /** Counts a backend's state change, labelled by the state it entered. */
  public void transition(String backendId, String state) {
    Counter.builder("fairway_backend_transitions").description("Backend state changes by the state entered")
        .tag("backend", backendId).tag("state", state).register(registry).increment();
  }

  /**
   * A service's panic started ({@code on}: {@code fairway_service_panic} 1 and
   * {@code fairway_service_panics_total} counts it) or ended ({@code fairway_service_panic} 0).
   */
  public void panic(String service, boolean on) {
    panicFlag(service).set(on ? 1 : 0);
    if (on) {
      counter("fairway_service_panics", service, "Panics started: the subset had too few healthy backends").increment();
    }
  }

  private AtomicInteger panicFlag(String service) {
    return panics.computeIfAbsent(service, k -> new AtomicInteger());
  }

  /** Registers gauges for new backends and services and removes those of departed ones. */
  public synchronized void syncTopology(Set<String> backendIds, Set<String> serviceNames) {
    for (String id : backendIds) {
      backendGauges.computeIfAbsent(id, this::backendMeters);
    }
    removeMissing(backendGauges, backendIds);
    for (String name : serviceNames) {
      serviceGauges.computeIfAbsent(name, k -> Gauge.builder("fairway_service_waiting", () -> waiting(k))
          .tag("service", k).description("Requests waiting for a free slot").register(registry));
    }
    for (String name : serviceNames) {
      panicGauges.computeIfAbsent(name, k -> Gauge.builder("fairway_service_panic", panicFlag(k), AtomicInteger::get)
          .tag("service", k).description("1 while the service spreads over all of its backends (panic), else 0")
          .register(registry));
    }
    for (String name : new ArrayList<>(serviceGauges.keySet())) {
      if (!serviceNames.contains(name)) {
        registry.remove(serviceGauges.remove(name));
      }
    }
    for (String name : serviceNames) {
      throttleGauges.computeIfAbsent(name, this::throttleMeters);
    }
    for (String name : new ArrayList<>(throttleGauges.keySet())) {
      if (!serviceNames.contains(name)) {
        throttleGauges.remove(name).forEach(registry::remove);
      }
    }
    for (String name : new ArrayList<>(panicGauges.keySet())) {
      if (!serviceNames.contains(name)) {
        registry.remove(panicGauges.remove(name));
        panics.remove(name);
      }
    }
  }

  private List<Meter> throttleMeters(String service) {
    return List.of(
        Gauge.builder("fairway_throttle_reject_probability", this, m -> m.throttle() == null ? 0
                : m.throttle().rejectProbability(service)).tag("service", service)
            .description("Probability that adaptive throttling refuses a new request locally").register(registry),
        Gauge.builder("fairway_throttle_requests", this, m -> m.throttle() == null ? 0 : m.throttle().requests(service))
            .tag("service", service).description("Requests in the adaptive throttling window").register(registry),
        Gauge.builder("fairway_throttle_accepts", this, m -> m.throttle() == null ? 0 : m.throttle().accepts(service))
            .tag("service", service).description("Requests in the adaptive throttling window that were not refused "
                + "as overloaded").register(registry));
  }

  private ThrottleReadings throttle() {
    return throttleReadings;
  }

  private List<Meter> backendMeters(String id) {
    BackendReadings r = readings(id);
    List<Meter> meters = new ArrayList<>();
    meters.add(Gauge.builder("fairway_backend_active", () -> counts(id).active()).tag("backend", id)
        .description("Requests in flight to the backend from this process").register(registry));
    meters.add(Gauge.builder("fairway_backend_capacity", () -> counts(id).capacity()).tag("backend", id)
        .description("On-proxy capacity of the backend").register(registry));
    if (table.shares() != null) {
      meters.add(Gauge.builder("fairway_backend_capacity_share", () -> share(id)).tag("backend", id)
          .description("Part of the backend's cluster-wide capacity this member may use now (shared capacity)")
          .register(registry));
    }
    meters.add(Gauge.builder("fairway_backend_held", () -> counts(id).held() ? 1 : 0).tag("backend", id)
        .description("1 while this process holds the backend back after a run of failures").register(registry));
    meters.add(FunctionCounter.builder("fairway_backend_holds", this, m -> m.counts(id).holds()).tag("backend", id)
        .description("Times this process held the backend back after a run of failures").register(registry));
    meters.add(Gauge.builder("fairway_backend_weight", r::weight).tag("backend", id)
        .description("Capability score times configured weight, as the weighted strategies use it").register(registry));
    meters.add(Gauge.builder("fairway_backend_utilization", r::utilization).tag("backend", id)
        .description("Utilization the backend last reported (ORCA)").register(registry));
    meters.add(FunctionCounter.builder("fairway_backend_bad_load_reports", r, BackendReadings::badLoadReports)
        .tag("backend", id).description("Malformed binary load reports (endpoint-load-metrics-bin) the backend sent, "
            + "ignored").register(registry));
    for (String state : STATES) {
      meters.add(Gauge.builder("fairway_backend_state", () -> r.isIn(state)).tag("backend", id).tag("state", state)
          .description("1 for the backend's current state, 0 for the others").register(registry));
    }
    return meters;
  }

  /** The request meters of a backend, created on first use. */
  public BackendMeters backend(String backendId) {
    BackendMeters m = backendMeters.get(backendId);
    return m != null ? m : backendMeters.computeIfAbsent(backendId, this::createBackendMeters);
  }

  private BackendMeters createBackendMeters(String id) {
    Counter[] byClass = new Counter[BackendMeters.CLASSES.length];
    for (int i = 0; i < byClass.length; i++) {
      byClass[i] = Counter.builder("fairway_backend_requests").tag("backend", id).tag("class", BackendMeters.CLASSES[i])
          .description("Requests to the backend by status class (error: no response)").register(registry);
    }
    Timer latency = Timer.builder("fairway_backend_latency").tag("backend", id)
        .description("From taking the slot to the backend's last byte").publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(1)).register(registry);
    return new BackendMeters(latency, byClass);
  }

  /** The readings the balancer keeps up to date for a backend's gauges. */
  public BackendReadings readings(String backendId) {
    return readings.computeIfAbsent(backendId, k -> new BackendReadings());
  }

  private void removeMissing(Map<String, List<Meter>> gauges, Set<String> keep) {
    for (String id : new ArrayList<>(gauges.keySet())) {
      if (!keep.contains(id)) {
        Collection<Meter> meters = gauges.remove(id);
        meters.forEach(registry::remove);
        readings.remove(id);
        BackendMeters m = backendMeters.remove(id);
        if (m != null) {
          registry.remove(m.latency());
          for (Counter c : m.byClass()) {
            registry.remove(c);
          }
        }
      }
    }
  }

  private TableView.EndpointCounts counts(String id) {
    TableView.EndpointCounts c = table.endpointCounts(id);
    return c == null ? new TableView.EndpointCounts(0, 0, false, 0) : c;
  }

  private int share(String id) {
    Map<String, Integer> shares = table.shares();
    return shares == null ? 0 : shares.getOrDefault(id, 0);
  }

  private int waiting(String service) {
    TableView.ServiceCounts c = table.serviceCounts(service);
    return c == null ? 0 : c.waiting();
  }
}
