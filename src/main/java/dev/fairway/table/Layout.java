package dev.fairway.table;

import dev.fairway.balancer.RendezvousSubsetter;
import dev.fairway.balancer.Subsetter;
import dev.fairway.config.BackendConfig;
import dev.fairway.config.ServiceConfig;
import dev.fairway.config.SubsetAlgorithm;
import dev.fairway.slots.EndpointSpec;
import dev.fairway.slots.ServiceSpec;
import dev.fairway.slots.SlowStart;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the slot table must hold for the table's services and backends: each service's subset for
 * this client, and the endpoint and service specs to {@code apply}.
 *
 * <p>Example: service {@code api} over members {@code [b1, b2]} with subset size 0 gives subsets
 * {@code {api=[b1, b2]}}, one {@code ServiceSpec} over {@code [b1, b2]} and one
 * {@code EndpointSpec} per backend, available while its state is healthy. A service in
 * {@code panicking} is laid out over all of its members, its subset or not (see {@link Panic});
 * any other over its subset and the backends standing in for its unavailable members (see
 * {@link Replacements}).
 *
 * @param subsets   per service, the ids of its subset
 * @param inAny     the ids some subset holds
 * @param endpoints one spec per backend, in table order
 * @param services  one spec per service, members in their configured order
 */
record Layout(Map<String, Set<String>> subsets, Set<String> inAny, List<EndpointSpec> endpoints,
              List<ServiceSpec> services) {

  /** Each service's subset for this client, in service order, by {@code algorithm}. */
  static Map<String, Set<String>> subsets(Collection<ServiceConfig> services, Map<String, List<String>> members,
                                          int clientId, int clientCount, SubsetAlgorithm algorithm) {
    Map<String, Set<String>> subsets = new LinkedHashMap<>();
    for (ServiceConfig s : services) {
      List<String> ids = members.get(s.name());
      subsets.put(s.name(), new LinkedHashSet<>(algorithm == SubsetAlgorithm.RENDEZVOUS
          ? RendezvousSubsetter.subset(ids, clientId, Math.max(clientCount, clientId + 1), s.subsetSize())
          : Subsetter.subset(ids, clientId, s.subsetSize())));
    }
    return subsets;
  }

  /**
   * Per service, the backends outside its subset in the order this client takes them as
   * replacements ({@link Subsetter#order}, {@link RendezvousSubsetter#order}); empty when the
   * subset holds all.
   */
  static Map<String, List<String>> orders(Collection<ServiceConfig> services, Map<String, List<String>> members,
                                          Map<String, Set<String>> subsets, int clientId, SubsetAlgorithm algorithm) {
    Map<String, List<String>> orders = new LinkedHashMap<>();
    for (ServiceConfig s : services) {
      List<String> ids = members.get(s.name());
      orders.put(s.name(), algorithm == SubsetAlgorithm.RENDEZVOUS
          ? RendezvousSubsetter.order(ids, clientId, subsets.get(s.name()))
          : Subsetter.order(ids, clientId, s.subsetSize()));
    }
    return orders;
  }

  /**
   * @param subsets      from {@link #subsets}
   * @param replacements the backends standing in for unavailable subset members
   * @param panicking the services to lay out over all of their members
   */
  static Layout of(Collection<ServiceConfig> services, Map<String, List<String>> members,
                   Collection<Backend> backends, Map<String, Set<String>> subsets, Replacements replacements,
                   Set<String> panicking) {
    Set<String> inAny = new HashSet<>();
    List<ServiceSpec> serviceSpecs = new ArrayList<>();
    for (ServiceConfig s : services) {
      List<String> ids = members.get(s.name());
      Set<String> subset = subsets.get(s.name());
      inAny.addAll(subset);
      Set<String> standIns = replacements.of(s.name());
      List<String> ordered = panicking.contains(s.name()) ? ids
          : ids.stream().filter(id -> subset.contains(id) || standIns.contains(id)).toList();
      serviceSpecs.add(new ServiceSpec(s.name(), s.strategy(), s.slots().maxWaiting(), s.slots().maxActive(), ordered,
          s.balancing(), s.outlierDetection(), new SlowStart(s.slowStartMs(), s.slowStartInitialPercent())));
    }
    List<EndpointSpec> endpointSpecs = new ArrayList<>();
    for (Backend e : backends) {
      BackendConfig b = e.config;
      endpointSpecs.add(new EndpointSpec(b.id(), b.host(), b.port(), b.capacity(), e.weight, e.status.available(),
          b.tls(), b.h2c()));
    }
    return new Layout(subsets, inAny, endpointSpecs, serviceSpecs);
  }
}
