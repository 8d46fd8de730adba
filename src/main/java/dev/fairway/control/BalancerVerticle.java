package dev.fairway.control;

import dev.fairway.JsonValues;
import dev.fairway.balancer.CapabilityScore;
import dev.fairway.balancer.LoadReport;
import dev.fairway.balancer.Observation;
import dev.fairway.balancer.ObservationBatch;
import dev.fairway.balancer.OrcaParser;
import dev.fairway.balancer.ScoreTracker;
import dev.fairway.balancer.Subsetter;
import dev.fairway.config.BackendConfig;
import dev.fairway.config.ConfigException;
import dev.fairway.config.ConfigParser;
import dev.fairway.config.FairwayConfig;
import dev.fairway.config.ServiceConfig;
import dev.fairway.health.BackendStatus;
import dev.fairway.health.HealthThresholds;
import dev.fairway.health.OutlierDetector;
import dev.fairway.health.OutlierEvent;
import dev.fairway.health.OutlierSettings;
import dev.fairway.health.Transition;
import dev.fairway.metrics.FairwayMetrics;
import dev.fairway.route.BalancerSnapshot;
import dev.fairway.route.Route;
import dev.fairway.slots.EndpointSpec;
import dev.fairway.slots.ServiceSpec;
import dev.fairway.slots.SlotTable;
import dev.fairway.slots.TableView;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single verticle that owns the backend table: subsets, active health checks, passive
 * ejection, lame duck, draining and the admin commands. Whenever anything changes it reshapes the
 * process-wide {@link SlotTable} and publishes a new immutable {@link BalancerSnapshot} to every
 * proxy verticle. It talks to the rest only over the event bus.
 *
 * <p>Example: backend b2 answers a request with {@code Lame-Duck: true}; the proxy stops granting
 * it slots at once and signals {@link Addresses#LAME_DUCK_SIGNAL}; this verticle logs
 * {@code backend b2 healthy -> lame-duck: Lame-Duck: true on a response}, republishes, and lets b2
 * back in once a health check passes without the header.
 *
 * <p>In cluster mode an admin command that succeeds here is also published on
 * {@link Addresses#CLUSTER_COMMANDS}, and the commands other members publish there are applied
 * here too; the admin caller's answer (and its 404 or 400) is this member's. The client id and
 * count used for subsetting follow the cluster membership ({@link Addresses#MEMBERSHIP}).
 */
public final class BalancerVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(BalancerVerticle.class);
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);
  private static final long TICK_MS = 1000;
  private static final int NON_MEMBER_CHECK_FACTOR = 5;

  private final SlotTable table;
  private final FairwayMetrics metrics;
  private FairwayConfig config;
  private int configVersion = 1;
  private String configHash = "";
  /** Backends added through the API, per service: kept across reloads unless the file names them. */
  private final Map<String, Map<String, BackendConfig>> apiAdded = new LinkedHashMap<>();
  private final Map<String, BackendEntry> backends = new LinkedHashMap<>();
  private final Map<String, ServiceConfig> services = new LinkedHashMap<>();
  private final Map<String, List<String>> serviceMembers = new LinkedHashMap<>();
  private final Map<String, Set<String>> subsets = new LinkedHashMap<>();
  private final OutlierDetector outliers = new OutlierDetector(OutlierSettings.DEFAULTS);
  private long outlierTimer = -1;
  private long lastTickNanos = System.nanoTime();
  private HttpClientAgent healthClient;
  private HealthChecker checker;
  private BalancerSnapshot snapshot = BalancerSnapshot.EMPTY;
  /** Names this balancer in the commands it relays, so that it skips its own. */
  private final String origin = UUID.randomUUID().toString();
  private int clientId;
  /** Whether the cluster, not the config file, gives the client id and count. */
  private boolean clustered;
  private int clientCount;

  private final ConfigSource source;
  private ConfigReloader reloader;

  /**
   * The file a running config came from, and the short hash of its text.
   *
   * @param path the config file, watched for changes
   * @param hash {@link ConfigReloader#shortHash} of the text it was started with
   */
  public record ConfigSource(java.nio.file.Path path, String hash) {
  }

  /**
   * @param source where the config came from, to watch it; {@code null} for none (tests)
   */
  public BalancerVerticle(FairwayConfig config, ConfigSource source, SlotTable table, FairwayMetrics metrics) {
    this.config = config;
    this.source = source;
    this.configHash = source == null ? "" : source.hash();
    this.table = table;
    this.metrics = metrics;
    this.clientId = config.subsetting().clientId();
    this.clientCount = config.subsetting().clientCount();
  }

  @Override
  public Future<?> start() {
    healthClient = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false).setName("fairway-health"));
    checker = new HealthChecker(healthClient);
    var bus = vertx.eventBus();
    bus.<Void>localConsumer(Addresses.SNAPSHOT_GET, m -> m.reply(snapshot, LOCAL));
    bus.<Void>localConsumer(Addresses.SERVICES, m -> m.reply(servicesJson()));
    bus.<ObservationBatch>localConsumer(Addresses.OBSERVATIONS, m -> onObservations(m.body()));
    bus.<String>localConsumer(Addresses.LAME_DUCK_SIGNAL, m -> onLameDuckHeader(m.body()));
    bus.<JsonObject>localConsumer(Addresses.COMMANDS, this::onCommand);
    bus.<JsonObject>localConsumer(Addresses.MEMBERSHIP, m -> onMembership(m.body()));
    Future<Void> registered = Future.succeededFuture();
    if (vertx.isClustered()) {
      registered = bus.<JsonObject>consumer(Addresses.CLUSTER_COMMANDS, this::onClusterCommand).completion();
    }
    loadConfig();
    if (source != null && config.reload().scanPeriodMs() > 0) {
      reloader = new ConfigReloader(source.path(), System.getenv());
      reloader.start(vertx, config.reload().scanPeriodMs(), this::reload);
    }
    vertx.setPeriodic(TICK_MS, id -> tick());
    return registered;
  }

  @Override
  public Future<?> stop() {
    if (reloader != null) {
      reloader.stop();
    }
    return healthClient.close();
  }

  private void loadConfig() {
    for (ServiceConfig s : config.services()) {
      services.put(s.name(), s);
      List<String> ids = new ArrayList<>();
      for (BackendConfig b : s.backends()) {
        ids.add(b.id());
        addBackend(b, s, true).services.add(s.name());
      }
      serviceMembers.put(s.name(), ids);
    }
    if (!backends.isEmpty()) {
      LOG.info("serving optimistically: {} backends count as healthy until their first health checks",
          backends.size());
    }
    publish();
  }

  /**
   * Applies a new valid config without dropping in-flight requests: new services and backends
   * join (new backends unhealthy until checked), removed ones drain and then go, capacities,
   * weights, strategies and timeouts change in place for new requests. Backends added through the
   * API stay unless the file now names the same id. Listener addresses need a restart.
   */
  public void reload(FairwayConfig next, String hash) {
    if (hash.equals(configHash)) {
      return;
    }
    if (!next.proxy().equals(config.proxy()) || !next.admin().equals(config.admin())) {
      LOG.warn("config version {}: proxy/admin listener settings changed; they apply at the next restart",
          configVersion + 1);
    }
    int added = 0;
    int changed = 0;
    int removed = 0;
    Map<String, ServiceConfig> nextServices = new LinkedHashMap<>();
    next.services().forEach(s -> nextServices.put(s.name(), s));
    for (String name : new ArrayList<>(services.keySet())) {
      if (!nextServices.containsKey(name)) {
        for (String id : new ArrayList<>(serviceMembers.get(name))) {
          removed += detach(name, id, "service " + name + " left the config") ? 1 : 0;
        }
        services.remove(name);
        serviceMembers.remove(name);
        apiAdded.remove(name);
      }
    }
    for (ServiceConfig s : next.services()) {
      services.put(s.name(), s);
      Map<String, BackendConfig> wanted = new LinkedHashMap<>();
      s.backends().forEach(b -> wanted.put(b.id(), b));
      apiAdded.getOrDefault(s.name(), Map.of()).forEach(wanted::putIfAbsent);
      List<String> members = serviceMembers.computeIfAbsent(s.name(), k -> new ArrayList<>());
      for (String id : new ArrayList<>(members)) {
        if (!wanted.containsKey(id)) {
          removed += detach(s.name(), id, "left service " + s.name() + " in the config") ? 1 : 0;
        }
      }
      for (BackendConfig b : wanted.values()) {
        BackendEntry e = backends.get(b.id());
        if (e != null && (e.status.draining() || !e.config.url().equals(b.url()))) {
          forget(e, "replaced by the new config");
          e = null;
        }
        if (e == null) {
          e = addBackend(b, s, false);
          added++;
        } else if (!e.config.equals(b) || !e.healthCheck.equals(s.healthCheck())) {
          e.config = b;
          e.healthCheck = s.healthCheck();
          changed++;
        }
        e.services.add(s.name());
        if (!members.contains(b.id())) {
          members.add(b.id());
        }
      }
      members.sort(java.util.Comparator.comparingInt(new ArrayList<>(wanted.keySet())::indexOf));
    }
    if (!clustered) {
      clientId = next.subsetting().clientId();
      clientCount = next.subsetting().clientCount();
    }
    config = next;
    configVersion++;
    configHash = hash;
    publish();
    LOG.info("config version {} (sha {}) is live: {} backends added, {} changed, {} draining",
        configVersion, hash, added, changed, removed);
  }

  /**
   * Takes a backend out of one service; once no service lists it, it stays visible as draining
   * until its last request ends and then goes.
   */
  private boolean detach(String service, String id, String why) {
    BackendEntry e = backends.get(id);
    List<String> members = serviceMembers.get(service);
    if (members != null) {
      members.remove(id);
    }
    if (e == null) {
      return false;
    }
    e.services.remove(service);
    if (e.services.isEmpty()) {
      if (members != null) {
        members.add(id);
      }
      transition(e, e.status.drain(why));
      return true;
    }
    return false;
  }

  private BackendEntry addBackend(BackendConfig b, ServiceConfig service, boolean atStartUp) {
    BackendEntry entry = backends.get(b.id());
    if (entry == null) {
      entry = new BackendEntry(b, service.healthCheck(), service.balancing(),
          new BackendStatus(b.id(), HealthThresholds.of(service.healthCheck()), atStartUp));
      backends.put(b.id(), entry);
      long firstCheck = atStartUp
          ? ThreadLocalRandom.current().nextLong(1, Math.max(2, service.healthCheck().intervalMs()))
          : 1;
      scheduleCheck(entry, firstCheck);
    }
    return entry;
  }

  /** Reshapes the slot table and publishes a new snapshot. */
  private void publish() {
    Map<String, Set<String>> previousSubsets = new LinkedHashMap<>(subsets);
    subsets.clear();
    Set<String> inAny = new HashSet<>();
    List<ServiceSpec> serviceSpecs = new ArrayList<>();
    for (ServiceConfig s : services.values()) {
      List<String> members = serviceMembers.get(s.name());
      List<String> subset = Subsetter.subset(members, clientId, s.subsetSize());
      subsets.put(s.name(), new LinkedHashSet<>(subset));
      inAny.addAll(subset);
      List<String> ordered = members.stream().filter(subsets.get(s.name())::contains).toList();
      serviceSpecs.add(new ServiceSpec(s.name(), s.strategy(), s.slots().maxWaiting(), s.slots().maxActive(), ordered,
          s.balancing()));
    }
    List<EndpointSpec> endpointSpecs = new ArrayList<>();
    for (BackendEntry e : backends.values()) {
      e.inAnySubset = inAny.contains(e.id());
      BackendConfig b = e.config;
      endpointSpecs.add(new EndpointSpec(b.id(), b.host(), b.port(), b.capacity(), e.weight, e.status.available()));
    }
    outliers.setMembers(backends.keySet());
    outliers.setGroups(subsets.values());
    table.apply(endpointSpecs, serviceSpecs, System.nanoTime());
    metrics.syncTopology(backends.keySet(), services.keySet());
    backends.values().forEach(this::updateReadings);
    logSubsetChanges(previousSubsets);
    List<Route> routes = new ArrayList<>();
    for (ServiceConfig s : services.values()) {
      routes.add(new Route(s.name(), s.match(), s.timeouts(), s.slots().waitTimeoutMs(), table.service(s.name())));
    }
    snapshot = new BalancerSnapshot(snapshot.version() + 1, routes);
    vertx.eventBus().publish(Addresses.SNAPSHOT, snapshot, LOCAL);
  }

  private void updateReadings(BackendEntry e) {
    metrics.readings(e.id()).set(e.status.state().jsonName(), e.weight, e.stats.utilization);
  }

  /** Logs each service whose subset changed (a partial subset only: with all backends it is noise). */
  private void logSubsetChanges(Map<String, Set<String>> previous) {
    subsets.forEach((service, subset) -> {
      Set<String> before = previous.get(service);
      ServiceConfig s = services.get(service);
      if (before != null && !before.equals(subset) && s != null && s.subsetSize() > 0) {
        LOG.info("service {}: subset is now {} (client {} of {}, subset size {})", service, subset, clientId,
            clientCount, s.subsetSize());
      }
    });
  }

  private void transition(BackendEntry entry, Optional<Transition> t) {
    t.ifPresent(tr -> {
      LOG.info("backend {} {}", entry.id(), tr);
      metrics.transition(entry.id(), tr.to().jsonName());
      publish();
    });
  }

  // ---- active health checks

  private void scheduleCheck(BackendEntry entry, long delayMs) {
    entry.checkTimer = vertx.setTimer(Math.max(1, delayMs), id -> {
      entry.checkTimer = -1;
      runCheck(entry);
    });
  }

  private void checkNow(BackendEntry entry) {
    if (entry.checkTimer >= 0) {
      vertx.cancelTimer(entry.checkTimer);
      entry.checkTimer = -1;
      runCheck(entry);
    }
  }

  private void runCheck(BackendEntry entry) {
    if (entry.removed) {
      return;
    }
    BackendConfig b = entry.config;
    checker.check(b.host(), b.port(), entry.healthCheck).onSuccess(r -> {
      if (entry.removed || backends.get(entry.id()) != entry) {
        return;
      }
      if (r.status() >= 200 && r.status() < 300 && !r.lameDuck()) {
        outliers.endEarly(entry.id(), System.nanoTime()).ifPresent(ev -> {
          transition(entry, entry.status.endEjection(ev.reason()));
          scheduleOutlierReturns();
        });
      }
      transition(entry, r.status() == 0
          ? entry.status.onCheckFailure(r.failure())
          : entry.status.onCheckResponse(r.status(), r.lameDuck()));
      onLoadReport(entry, r.loadReport(), System.nanoTime());
      long interval = entry.healthCheck.intervalMs() * (entry.inAnySubset ? 1 : NON_MEMBER_CHECK_FACTOR);
      long jitter = interval / 10;
      scheduleCheck(entry, interval - jitter + ThreadLocalRandom.current().nextLong(2 * jitter + 1));
    });
  }

  // ---- passive signals from the proxies

  private void onLameDuckHeader(String id) {
    BackendEntry entry = backends.get(id);
    if (entry != null) {
      Optional<Transition> t = entry.status.onLameDuckHeader();
      if (t.isEmpty()) {
        publish();
      }
      transition(entry, t);
    }
  }

  private void onObservations(ObservationBatch batch) {
    long now = System.nanoTime();
    for (Observation o : batch.observations()) {
      BackendEntry entry = backends.get(o.backendId());
      if (entry == null) {
        continue;
      }
      entry.stats.add(o);
      onLoadReport(entry, o.loadReport(), now);
      if (o.sawSuccess()) {
        outliers.onSuccess(o.backendId());
      }
      int failures = o.sawSuccess() ? o.trailingFailures() : o.failures();
      for (int i = 0; i < failures; i++) {
        outliers.onFailure(o.backendId(), "consecutive connect failures or 5xx", now, this::usable)
            .ifPresent(ev -> onEjected(entry, ev));
      }
    }
  }

  /**
   * Feeds a backend's ORCA report to its score; a report without {@code rps_fractional} or
   * {@code eps} falls back to the rates this proxy observes itself.
   */
  private void onLoadReport(BackendEntry entry, String header, long now) {
    if (header == null) {
      return;
    }
    OrcaParser.parse(header).ifPresent(r -> {
      double qps = r.qps() > 0 ? r.qps() : entry.stats.qps;
      double eps = r.eps() > 0 ? r.eps() : entry.stats.eps;
      entry.score.update(new LoadReport(r.cpuUtilization(), r.applicationUtilization(), qps, eps), now);
      entry.stats.utilization = r.applicationUtilization() > 0 ? r.applicationUtilization() : r.cpuUtilization();
    });
  }

  /** Recomputes the capability weights (A58) and hands changed ones to the slot table. */
  private void updateWeights(long now) {
    List<BackendEntry> entries = new ArrayList<>(backends.values());
    double[] configured = new double[entries.size()];
    List<ScoreTracker> trackers = new ArrayList<>(entries.size());
    for (int i = 0; i < configured.length; i++) {
      configured[i] = entries.get(i).config.weight();
      trackers.add(entries.get(i).score);
    }
    double[] weights = CapabilityScore.weights(trackers, configured, now);
    Map<String, Double> changed = new LinkedHashMap<>();
    for (int i = 0; i < weights.length; i++) {
      BackendEntry e = entries.get(i);
      if (Math.abs(weights[i] - e.weight) > 1e-9 * Math.max(1, Math.abs(e.weight))) {
        e.weight = weights[i];
        changed.put(e.id(), weights[i]);
      }
    }
    if (!changed.isEmpty()) {
      table.updateWeights(changed);
    }
  }

  /** Whether a backend takes requests now (healthy, not lame duck, ejected or draining). */
  private boolean usable(String id) {
    BackendEntry e = backends.get(id);
    return e != null && e.status.available();
  }

  private void onEjected(BackendEntry entry, OutlierEvent ev) {
    transition(entry, entry.status.eject(ev.reason()));
    scheduleOutlierReturns();
  }

  private void scheduleOutlierReturns() {
    if (outlierTimer >= 0) {
      vertx.cancelTimer(outlierTimer);
      outlierTimer = -1;
    }
    outliers.nextReturnNanos().ifPresent(at -> outlierTimer = vertx.setTimer(
        Math.max(1, (at - System.nanoTime()) / 1_000_000), id -> {
          outlierTimer = -1;
          for (OutlierEvent ev : outliers.returnDue(System.nanoTime())) {
            BackendEntry entry = backends.get(ev.backendId());
            if (entry != null) {
              transition(entry, entry.status.endEjection(ev.reason()));
              checkNow(entry);
            }
          }
          scheduleOutlierReturns();
        }));
  }

  private void tick() {
    long now = System.nanoTime();
    double seconds = Math.max(0.001, (now - lastTickNanos) / 1e9);
    lastTickNanos = now;
    boolean removedAny = false;
    updateWeights(now);
    for (BackendEntry e : new ArrayList<>(backends.values())) {
      e.stats.tick(seconds);
      updateReadings(e);
      if (e.status.draining()) {
        TableView.EndpointCounts c = table.endpointCounts(e.id());
        if (c == null || c.active() == 0) {
          forget(e, "drained and removed");
          removedAny = true;
        }
      }
    }
    if (removedAny) {
      publish();
    }
  }

  private void forget(BackendEntry e, String why) {
    e.removed = true;
    if (e.checkTimer >= 0) {
      vertx.cancelTimer(e.checkTimer);
    }
    backends.remove(e.id());
    serviceMembers.values().forEach(ids -> ids.remove(e.id()));
    LOG.info("backend {} {}", e.id(), why);
  }

  // ---- cluster membership

  /** A new cluster position: recompute every subset with the new client id and count. */
  private void onMembership(JsonObject m) {
    clustered = true;
    int id = m.getInteger("clientId");
    int count = m.getInteger("clientCount");
    if (id == clientId && count == clientCount) {
      LOG.info("cluster: {}; {} members, this proxy stays client {} of {}", m.getString("reason"),
          m.getJsonArray("members").size(), id, count);
      return;
    }
    LOG.info("cluster: {}; this proxy is now client {} of {} (was {} of {}), subsets recomputed",
        m.getString("reason"), id, count, clientId, clientCount);
    clientId = id;
    clientCount = count;
    publish();
    subsets.forEach((service, subset) -> LOG.info("service {} subset {}", service, subset));
  }

  // ---- admin commands

  /** Where a command's answer goes: the admin's request, or the log for another member's command. */
  private interface Reply {
    void reply(Object body);

    void fail(int status, String message);
  }

  /** An admin command from this member's admin listener: answer it, and relay it on success. */
  private void onCommand(Message<JsonObject> m) {
    JsonObject cmd = m.body();
    execute(cmd, new Reply() {
      @Override
      public void reply(Object body) {
        m.reply(body);
        if (vertx.isClustered()) {
          vertx.eventBus().publish(Addresses.CLUSTER_COMMANDS, cmd, new DeliveryOptions().addHeader("origin", origin));
        }
      }

      @Override
      public void fail(int status, String message) {
        m.fail(status, message);
      }
    });
  }

  /** An admin command another member applied: apply it here too, and log the outcome. */
  private void onClusterCommand(Message<JsonObject> m) {
    String from = m.headers().get("origin");
    if (origin.equals(from)) {
      return;
    }
    JsonObject cmd = m.body();
    String what = describe(cmd);
    execute(cmd, new Reply() {
      @Override
      public void reply(Object body) {
        LOG.info("cluster: applied {} from another member", what);
      }

      @Override
      public void fail(int status, String message) {
        LOG.warn("cluster: {} from another member not applied here: {} {}", what, status, message);
      }
    });
  }

  private static String describe(JsonObject cmd) {
    String op = cmd.getString("op", "");
    return switch (op) {
      case "lame-duck" -> (cmd.getBoolean("on", true) ? "lame-duck of " : "end of lame-duck of ") + cmd.getString("id");
      case "add-backends" -> "add-backends to " + cmd.getString("service");
      case "remove-backend" -> "remove-backend " + cmd.getString("id") + " from " + cmd.getString("service");
      default -> "command " + op;
    };
  }

  private void execute(JsonObject cmd, Reply m) {
    switch (cmd.getString("op", "")) {
      case "lame-duck" -> lameDuck(m, cmd.getString("id"), cmd.getBoolean("on", true));
      case "add-backends" -> addBackends(m, cmd.getString("service"), cmd.getValue("backends"));
      case "remove-backend" -> removeBackend(m, cmd.getString("service"), cmd.getString("id"));
      default -> m.fail(400, "unknown command " + cmd.getString("op"));
    }
  }

  private void lameDuck(Reply m, String id, boolean on) {
    BackendEntry entry = backends.get(id);
    if (entry == null) {
      m.fail(404, "unknown backend id " + id);
      return;
    }
    transition(entry, on ? entry.status.enterLameDuck() : entry.status.leaveLameDuck());
    if (!on) {
      checkNow(entry);
    }
    m.reply(backendJson(entry, null, table.view()));
  }

  private void addBackends(Reply m, String serviceName, Object body) {
    ServiceConfig service = services.get(serviceName);
    if (service == null) {
      m.fail(404, "unknown service " + serviceName);
      return;
    }
    List<BackendConfig> added;
    try {
      added = ConfigParser.parseBackends(JsonValues.toPlain(body), service.slots().capacity());
    } catch (ConfigException e) {
      m.fail(400, String.join("; ", e.problems()));
      return;
    }
    for (int i = 0; i < added.size(); i++) {
      BackendEntry existing = backends.get(added.get(i).id());
      if (existing != null && !existing.config.url().equals(added.get(i).url())) {
        m.fail(400, "[" + i + "].id: \"" + existing.id() + "\" already names " + existing.config.url()
            + "; expected a new id or the same url");
        return;
      }
    }
    JsonArray out = new JsonArray();
    List<String> members = serviceMembers.get(serviceName);
    for (BackendConfig b : added) {
      BackendEntry entry = addBackend(b, service, false);
      entry.services.add(serviceName);
      apiAdded.computeIfAbsent(serviceName, k -> new LinkedHashMap<>()).put(b.id(), b);
      if (!members.contains(b.id())) {
        members.add(b.id());
      }
      LOG.info("backend {} ({}) added to service {} by API; it serves once a health check passes",
          b.id(), b.url(), serviceName);
    }
    publish();
    TableView view = table.view();
    added.forEach(b -> out.add(backendJson(backends.get(b.id()), serviceName, view)));
    m.reply(out);
  }

  private void removeBackend(Reply m, String serviceName, String id) {
    List<String> members = serviceMembers.get(serviceName);
    if (members == null) {
      m.fail(404, "unknown service " + serviceName);
      return;
    }
    BackendEntry entry = backends.get(id);
    if (entry == null || !members.contains(id)) {
      m.fail(404, "unknown backend id " + id + " in service " + serviceName);
      return;
    }
    entry.services.remove(serviceName);
    apiAdded.getOrDefault(serviceName, new LinkedHashMap<>()).remove(id);
    if (entry.services.isEmpty()) {
      transition(entry, entry.status.drain("removed from service " + serviceName + " by API"));
    } else {
      members.remove(id);
      LOG.info("backend {} removed from service {} by API", id, serviceName);
      publish();
    }
    m.reply(backendJson(entry, serviceName, table.view()));
  }

  // ---- views

  private JsonArray servicesJson() {
    TableView view = table.view();
    JsonArray out = new JsonArray();
    for (ServiceConfig s : services.values()) {
      TableView.ServiceCounts sc = view.services().get(s.name());
      JsonArray list = new JsonArray();
      for (String id : serviceMembers.get(s.name())) {
        BackendEntry e = backends.get(id);
        if (e != null) {
          list.add(backendJson(e, s.name(), view));
        }
      }
      out.add(new JsonObject()
          .put("name", s.name())
          .put("strategy", s.strategy().configName())
          .put("waiting", sc == null ? 0 : sc.waiting())
          .put("active", sc == null ? 0 : sc.active())
          .put("clientId", clientId)
          .put("clientCount", clientCount)
          .put("configVersion", configVersion)
          .put("configHash", configHash)
          .put("backends", list));
    }
    return out;
  }

  private JsonObject backendJson(BackendEntry e, String service, TableView view) {
    TableView.EndpointCounts c = view.endpoints().get(e.id());
    boolean inSubset = service == null ? e.inAnySubset : subsets.getOrDefault(service, Set.of()).contains(e.id());
    return new JsonObject()
        .put("id", e.id())
        .put("url", e.config.url())
        .put("state", e.status.state().jsonName())
        .put("reason", e.status.reason())
        .put("inSubset", inSubset)
        .put("active", c == null ? 0 : c.active())
        .put("capacity", c == null ? e.config.capacity() : c.capacity())
        .put("weight", round(e.weight))
        .put("utilization", e.stats.utilization)
        .put("qps", round(e.stats.qps))
        .put("eps", round(e.stats.eps))
        .put("latencyMs", round(e.stats.latencyMs));
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }
}
