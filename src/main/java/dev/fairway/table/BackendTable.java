package dev.fairway.table;

import dev.fairway.balancer.Observation;
import dev.fairway.balancer.ObservationBatch;
import dev.fairway.config.FairwayConfig;
import dev.fairway.config.ServiceConfig;
import dev.fairway.config.SubsetAlgorithm;
import dev.fairway.config.TlsSettings;
import dev.fairway.health.Transition;
import dev.fairway.route.BalancerSnapshot;
import dev.fairway.route.Route;
import dev.fairway.slots.SlotTable;
import dev.fairway.slots.TableView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * The backend table: services, their members and subsets, backends added by API, config versions,
 * lame duck, active health, passive ejection and load scores. Every change that matters to routing
 * reshapes the {@link SlotTable} and hands the {@link TableListener} a new {@link BalancerSnapshot}.
 *
 * <p>Example (thresholds 2/3): {@code lameDuck("b1", true, t)} on a healthy b1 reports
 * {@code b1 healthy -> lame-duck} and publishes b1 unavailable; {@code lameDuck("b1", false, t)}
 * reports {@code b1 lame-duck -> unhealthy} and asks for a check now; the next passing
 * {@code onCheck} reports {@code b1 unhealthy -> healthy} and asks for the next check in one
 * interval, ±10 %.
 *
 * <p>Under subsetting only the backends this client needs are checked; an unavailable subset
 * member is replaced by the next backend in the subsetter's order ({@link Replacements}), and a
 * service whose subset still has too few usable members panics: it spreads over all of its
 * backends ({@link Panic}).
 *
 * <p>Time comes in as {@code nowNanos} on every call; randomness (the spread of health checks)
 * from the given generator. No I/O: timers, logs and the event bus are the listener's. Not
 * thread-safe: one owner (the balancer verticle) calls it.
 */
public final class BackendTable {
  private final SlotTable slots;
  private final TableListener listener;
  private final Roster roster;
  private final Panic panic;
  private final Replacements replacements;
  private final Map<String, Backend> backends;
  private final Map<String, ServiceConfig> services;
  private FairwayConfig config;
  private int configVersion = 1;
  private String configHash;
  private Map<String, Set<String>> subsets = Map.of();
  private final Outliers outliers;
  private long lastTickNanos;
  private BalancerSnapshot snapshot = BalancerSnapshot.EMPTY;
  private int clientId;
  private int clientCount;
  /** Whether the cluster, not the config file, gives the client id and count. */
  private boolean clustered;

  /**
   * An empty table; {@link #load} fills it from {@code config}.
   *
   * @param configHash the short hash of the config's text ({@code ""} when unknown)
   * @param random     spreads the health checks
   */
  public BackendTable(FairwayConfig config, String configHash, SlotTable slots, RandomGenerator random,
                      TableListener listener, long nowNanos) {
    this.config = config;
    this.configHash = configHash;
    this.slots = slots;
    this.listener = listener;
    this.roster = new Roster(random, listener, this::transition);
    this.panic = new Panic(listener, random);
    this.replacements = new Replacements(listener);
    this.backends = roster.backends;
    this.services = roster.services;
    this.outliers = new Outliers(backends, listener, this::transition, panic::checkNow);
    this.lastTickNanos = nowNanos;
    this.clientId = config.subsetting().clientId();
    this.clientCount = config.subsetting().clientCount();
  }

  /**
   * Takes the services and backends of the config given at start-up. Its backends count as
   * healthy until their first checks, which are spread at random over one interval.
   */
  public void load(long nowNanos) {
    roster.load(config);
    if (!backends.isEmpty()) {
      listener.note("serving optimistically: " + backends.size()
          + " backends count as healthy until their first health checks");
    }
    publish(nowNanos);
  }

  /** Whether {@code next} changes listener settings, which apply only at the next restart. */
  public boolean listenersDiffer(FairwayConfig next) {
    Optional<TlsSettings> none = Optional.empty(); // proxy.tls changes are applied live (or warned about) elsewhere
    return !next.proxy().withTls(none).equals(config.proxy().withTls(none)) || !next.admin().equals(config.admin());
  }

  /**
   * Applies a new valid config without dropping in-flight requests: new services and backends
   * join (new backends unhealthy until checked), removed ones drain and then go, capacities,
   * weights, strategies and timeouts change in place for new requests. Backends added through the
   * API stay unless the file now names the same id. Listener addresses need a restart.
   *
   * @return what changed; empty if {@code hash} is the running config's
   */
  public Optional<ReloadSummary> reload(FairwayConfig next, String hash, long nowNanos) {
    if (hash.equals(configHash)) {
      return Optional.empty();
    }
    int[] counts = roster.reload(next, nowNanos);
    if (!clustered) {
      clientId = next.subsetting().clientId();
      clientCount = next.subsetting().clientCount();
    }
    config = next;
    configVersion++;
    configHash = hash;
    publish(nowNanos);
    return Optional.of(new ReloadSummary(configVersion, hash, counts[0], counts[1], counts[2]));
  }

  /** Reshapes the slot table and publishes a new snapshot. */
  private void publish(long nowNanos) {
    Map<String, Set<String>> previous = subsets;
    SubsetAlgorithm algorithm = clustered ? config.subsetting().clusterAlgorithm() : config.subsetting().algorithm();
    Map<String, Set<String>> next = Layout.subsets(services.values(), roster.members, clientId, clientCount,
        algorithm);
    replacements.update(services.values(), next, Layout.orders(services.values(), roster.members, next, clientId,
        algorithm), backends);
    Layout layout = Layout.of(services.values(), roster.members, backends.values(), next, replacements,
        panic.update(services.values(), roster.members, next, backends, replacements));
    subsets = layout.subsets();
    backends.values().forEach(e -> e.inAnySubset = layout.inAny().contains(e.id()));
    outliers.arrange(services.values(), roster.members, subsets);
    slots.apply(layout.endpoints(), layout.services(), nowNanos);
    noteSubsetChanges(previous);
    List<Route> routes = new ArrayList<>();
    for (ServiceConfig s : services.values()) {
      routes.add(new Route(s.name(), s.match(), s.timeouts(), s.slots(), slots.service(s.name()), s.tls(),
          s.grpc().errorCodes(), s.overload(), s.headers(), s.split()));
    }
    snapshot = new BalancerSnapshot(snapshot.version() + 1, routes);
    listener.published(snapshot);
  }

  /** Notes each service whose subset changed (a partial subset only: with all backends it is noise). */
  private void noteSubsetChanges(Map<String, Set<String>> previous) {
    subsets.forEach((service, subset) -> {
      Set<String> before = previous.get(service);
      ServiceConfig s = services.get(service);
      if (before != null && !before.equals(subset) && s != null && s.subsetSize() > 0) {
        listener.note("service " + service + ": subset is now " + subset + " (client " + clientId + " of "
            + clientCount + ", subset size " + s.subsetSize() + ")");
      }
    });
  }

  private void transition(Backend entry, Optional<Transition> t, long nowNanos) {
    t.ifPresent(tr -> {
      listener.transitioned(entry.id(), tr);
      publish(nowNanos);
    });
  }

  /**
   * A health check of {@code id} ended: a passing one ends a passive ejection early; the result
   * moves the health state; the next check is due in one interval, ±10 %, while the backend is
   * watched (in a subset of this client, or of a service near panic: see {@link Panic}).
   */
  public void onCheck(String id, CheckOutcome r, long nowNanos) {
    Backend e = backends.get(id);
    if (e == null) {
      return;
    }
    if (r.passed()) {
      outliers.endEarly(e, nowNanos);
    }
    boolean learned = e.unknown;
    e.unknown = false;
    Optional<Transition> t = r.status() == 0
        ? e.status.onCheckFailure(r.failure())
        : e.status.onCheckResponse(r.failure(), r.lameDuck());
    if (learned && t.isEmpty()) {
      publish(nowNanos); // a failing first check of a candidate: its replacement is chosen past it
    }
    transition(e, t, nowNanos);
    loadReport(e, r.loadReport(), nowNanos);
    panic.afterCheck(e);
  }

  /** Where and how to check {@code id}, or empty if it left the table. */
  public Optional<CheckTarget> checkTarget(String id) {
    Backend e = backends.get(id);
    return e == null ? Optional.empty()
        : Optional.of(new CheckTarget(e.config.host(), e.config.port(), e.healthCheck,
            e.config.tls() ? e.tls : null, e.config.h2c()));
  }

  /** A proxy saw {@code Lame-Duck: true} from {@code id} and marked it unavailable: confirm it. */
  public void onLameDuckHeader(String id, long nowNanos) {
    Backend e = backends.get(id);
    if (e != null) {
      Optional<Transition> t = e.status.onLameDuckHeader();
      if (t.isEmpty()) {
        publish(nowNanos);
      }
      transition(e, t, nowNanos);
    }
  }

  /**
   * A proxy's counts of the last period: rates, load reports and passive ejection, by each
   * service's detector over its members' observations ({@link Outliers}).
   */
  public void onObservations(ObservationBatch batch, long nowNanos) {
    for (Observation o : batch.observations()) {
      Backend e = backends.get(o.backendId());
      if (e == null) {
        continue;
      }
      e.stats.add(o);
      loadReport(e, o.loadReport(), nowNanos);
      outliers.observe(o, e, nowNanos);
    }
    outliers.evaluate(nowNanos);
  }

  private void loadReport(Backend e, String header, long nowNanos) {
    String problem = e.onLoadReport(header, nowNanos);
    if (problem != null) {
      listener.note("backend " + e.id() + ": ignoring a malformed endpoint-load-metrics-bin report (" + problem
          + "); later ones are ignored without a log line");
    }
  }

  /** When the earliest passive ejection ends, for {@link #endEjections}. */
  public OptionalLong nextEjectionEndNanos() {
    return outliers.nextReturnNanos();
  }

  /** Ends the ejections whose time has come; each backend is then checked at once. */
  public void endEjections(long nowNanos) {
    outliers.endEjections(nowNanos);
  }

  /**
   * The periodic tick: recomputes the capability weights, folds the rates, and removes the
   * draining backends whose last request ended.
   */
  public void tick(long nowNanos) {
    double seconds = Math.max(0.001, (nowNanos - lastTickNanos) / 1e9);
    lastTickNanos = nowNanos;
    Map<String, Double> changed = Backend.reweigh(backends.values(), nowNanos);
    if (!changed.isEmpty()) {
      slots.updateWeights(changed);
    }
    boolean removedAny = false;
    for (Backend e : new ArrayList<>(backends.values())) {
      e.stats.tick(seconds);
      if (e.status.draining()) {
        TableView.EndpointCounts c = slots.endpointCounts(e.id());
        if (c == null || c.active() == 0) {
          roster.forget(e, "drained and removed");
          removedAny = true;
        }
      }
    }
    if (removedAny) {
      publish(nowNanos);
    }
  }

  /**
   * This proxy's place among the cluster's proxies changed: from now on the cluster, not the
   * config file, gives it.
   *
   * @return whether it moved (the subsets were then recomputed)
   */
  public boolean moveClient(int id, int count, long nowNanos) {
    clustered = true;
    if (id == clientId && count == clientCount) {
      return false;
    }
    clientId = id;
    clientCount = count;
    publish(nowNanos);
    return true;
  }

  /**
   * {@code POST} ({@code on}) or {@code DELETE /api/backends/{id}/lame-duck}; clearing it asks
   * for a check now.
   *
   * @throws CommandRejected 404 for an unknown id
   */
  public void lameDuck(String id, boolean on, long nowNanos) {
    Backend e = backends.get(id);
    if (e == null) {
      throw new CommandRejected(404, "unknown backend id " + id);
    }
    transition(e, on ? e.status.enterLameDuck() : e.status.leaveLameDuck(), nowNanos);
    if (!on) {
      panic.checkNow(e);
    }
  }

  /**
   * {@code POST /api/services/{name}/backends}: adds the new backends (unhealthy until a check
   * passes); an id already known with the same URL joins the service, and takes the body's
   * capacity and weight at once, its state and in-flight requests kept.
   *
   * @param body the request's JSON as plain lists and maps
   * @throws CommandRejected 404 for an unknown service, 400 for a bad body or an id naming another URL
   */
  public BackendsAdded addBackends(String service, Object body, long nowNanos) {
    BackendsAdded added = roster.addBackends(service, body);
    Backend.reweigh(backends.values(), nowNanos);
    publish(nowNanos);
    return added;
  }

  /**
   * {@code DELETE /api/services/{name}/backends/{id}}: a backend no other service lists drains,
   * then goes.
   *
   * @throws CommandRejected 404 for an unknown service, or a backend the service does not list
   */
  public void removeBackend(String service, String id, long nowNanos) {
    if (roster.removeBackend(service, id, nowNanos)) {
      publish(nowNanos);
    }
  }

  /** The snapshot last published. */
  public BalancerSnapshot snapshot() {
    return snapshot;
  }

  /** One backend as the admin API shows it, or {@code null} if unknown. */
  public BackendView backend(String id) {
    Backend e = backends.get(id);
    return e == null ? null : e.view();
  }

  /** Every backend, in table order. */
  public List<BackendView> backends() {
    return backends.values().stream().map(Backend::view).toList();
  }

  public Set<String> backendIds() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(backends.keySet()));
  }

  /** The services, in config order. */
  public Collection<ServiceConfig> services() {
    return List.copyOf(services.values());
  }

  public Set<String> serviceNames() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(services.keySet()));
  }

  /** The ids a service lists (draining ones included), in order; empty for an unknown service. */
  public List<String> members(String service) {
    return List.copyOf(roster.members.getOrDefault(service, List.of()));
  }

  /** Each service's subset for this client. */
  public Map<String, Set<String>> subsets() {
    return Collections.unmodifiableMap(subsets);
  }

  /** Whether {@code service} spreads over all of its backends now (see {@link Panic}). */
  public boolean panicking(String service) {
    return panic.panicking(service);
  }

  /** The subset member of {@code service} that {@code id} stands in for now, or {@code null}. */
  public String standsInFor(String service, String id) {
    return replacements.standsInFor(service, id);
  }

  public boolean inSubset(String service, String id) {
    return subsets.getOrDefault(service, Set.of()).contains(id);
  }

  public int clientId() {
    return clientId;
  }

  public int clientCount() {
    return clientCount;
  }

  public int configVersion() {
    return configVersion;
  }

  public String configHash() {
    return configHash;
  }
}
