package dev.fairway.control;

import dev.fairway.balancer.ObservationBatch;
import dev.fairway.config.FairwayConfig;
import dev.fairway.config.ServiceConfig;
import dev.fairway.health.BackendState;
import dev.fairway.health.Transition;
import dev.fairway.metrics.BackendSources;
import dev.fairway.metrics.FairwayMetrics;
import dev.fairway.proxy.upstream.UpstreamTlsContexts;
import dev.fairway.route.BalancerSnapshot;
import dev.fairway.slots.SlotTable;
import dev.fairway.table.BackendTable;
import dev.fairway.table.BackendsAdded;
import dev.fairway.table.BackendView;
import dev.fairway.table.CheckOutcome;
import dev.fairway.table.CommandRejected;
import dev.fairway.table.TableListener;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single verticle that runs the {@link BackendTable}: it turns event-bus messages, timers and
 * health-check answers into calls on the table, and the table's requests into timers, logs,
 * metrics and snapshots published to every proxy verticle. The table decides; this verticle only
 * does the I/O.
 *
 * <p>Example: backend b2 answers a request with {@code Lame-Duck: true}; the proxy stops granting
 * it slots at once and signals {@link Addresses#LAME_DUCK_SIGNAL}; this verticle hands that to
 * {@link BackendTable#onLameDuckHeader}, logs
 * {@code backend b2 healthy -> lame-duck: Lame-Duck: true on a response}, republishes, and lets b2
 * back in once a health check passes without the header.
 *
 * <p>In cluster mode an admin command that succeeds here is also published on
 * {@link Addresses#CLUSTER_COMMANDS} and recorded for members that join later, and the commands
 * other members publish there are applied here too ({@link ClusterRelay}); the admin caller's
 * answer (and its 404 or 400) is this member's. The client id and
 * count used for subsetting follow the cluster membership ({@link Addresses#MEMBERSHIP}).
 */
public final class BalancerVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(BalancerVerticle.class);
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);
  private static final long TICK_MS = 1000;

  private final FairwayConfig config;
  private final ConfigSource source;
  private final SlotTable slots;
  private final FairwayMetrics metrics;
  private BackendTable table;
  private BalancerSnapshot snapshot = BalancerSnapshot.EMPTY;
  /** Each backend's health-check timer, by id; a backend that leaves the table loses its probe. */
  private final Map<String, Probe> probes = new HashMap<>();
  private HealthChecker checker;
  private long ejectionTimer = -1;
  private long ejectionTimerAt;
  /** Names this balancer in the commands it relays, so that it skips its own. */
  private final String origin = UUID.randomUUID().toString();
  /** Cluster mode's relay of commands, replays and lame ducks; null when not clustered. */
  private ClusterRelay relay;
  /** The services' DNS discovery; its changes are this member's alone, never relayed. */
  private DnsDiscoveries discoveries;
  private ConfigReloader reloader;
  private final Consumer<FairwayConfig> onNewConfig;
  private final UpstreamTlsContexts upstreamTls;
  /** This member's cluster node name, once the cluster told it; shown by {@code GET /api/services}. */
  private String nodeName;

  /**
   * The file a running config came from, and the short hash of its text.
   *
   * @param path the config file, watched for changes
   * @param hash {@link ConfigReloader#shortHash} of the text it was started with
   */
  public record ConfigSource(java.nio.file.Path path, String hash) {
  }

  /** The health-check timer of one backend; {@code dead} once the backend left the table. */
  private static final class Probe {
    final String id;
    long timer = -1;
    boolean dead;

    Probe(String id) {
      this.id = id;
    }
  }

  /**
   * @param source where the config came from, to watch it; {@code null} for none (tests)
   */
  public BalancerVerticle(FairwayConfig config, ConfigSource source, SlotTable table, FairwayMetrics metrics) {
    this(config, source, table, metrics, next -> { }, new UpstreamTlsContexts());
  }

  /**
   * @param source     where the config came from, to watch it; {@code null} for none (tests)
   * @param onNewConfig told, on this verticle's context, each valid config whose text changed (before it applies)
   * @param upstreamTls the proxy's backend TLS contexts, whose files health checks of {@code https://} backends use
   */
  public BalancerVerticle(FairwayConfig config, ConfigSource source, SlotTable table, FairwayMetrics metrics,
                          Consumer<FairwayConfig> onNewConfig, UpstreamTlsContexts upstreamTls) {
    this.onNewConfig = onNewConfig;
    this.upstreamTls = upstreamTls;
    this.config = config;
    this.source = source;
    this.slots = table;
    this.metrics = metrics;
  }

  @Override
  public Future<?> start() {
    checker = new HealthChecker(vertx, upstreamTls);
    table = new BackendTable(config, source == null ? "" : source.hash(), slots, new SplittableRandom(),
        new Effects(), System.nanoTime());
    var bus = vertx.eventBus();
    discoveries = new DnsDiscoveries(vertx, this::applyLocally, this::stateIn, new BackendSources(metrics.registry()));
    bus.<Void>localConsumer(Addresses.SNAPSHOT_GET, m -> m.reply(snapshot, LOCAL));
    bus.<Void>localConsumer(Addresses.SERVICES, m -> {
      JsonArray services = TableJson.withShares(TableJson.services(table, slots.view()), slots.shares());
      if (nodeName != null) {
        services.forEach(s -> ((JsonObject) s).put("nodeName", nodeName));
      }
      m.reply(discoveries.withSources(services));
    });
    bus.<ObservationBatch>localConsumer(Addresses.OBSERVATIONS, m -> {
      table.onObservations(m.body(), System.nanoTime());
      armEjectionTimer();
    });
    bus.<String>localConsumer(Addresses.LAME_DUCK_SIGNAL, m -> {
      table.onLameDuckHeader(m.body(), System.nanoTime());
      if (relay != null) {
        relay.lameDuckSeen(m.body());
      }
    });
    bus.<JsonObject>localConsumer(Addresses.COMMANDS, this::onCommand);
    bus.<JsonObject>localConsumer(Addresses.MEMBERSHIP, m -> onMembership(m.body()));
    Future<Void> registered = Future.succeededFuture();
    if (vertx.isClustered()) {
      relay = new ClusterRelay(vertx, origin, cmd -> execute(cmd).json(),
          id -> table.onLameDuckHeader(id, System.nanoTime()), metrics);
      registered = relay.start();
    }
    table.load(System.nanoTime());
    discoveries.reconcile(config.services());
    if (source != null && config.reload().scanPeriodMs() > 0) {
      reloader = new ConfigReloader(source.path(), System.getenv());
      reloader.start(vertx, config.reload().scanPeriodMs(), this::reload);
    }
    vertx.setPeriodic(TICK_MS, id -> {
      table.tick(System.nanoTime());
      table.backends().forEach(this::updateReadings);
    });
    return registered;
  }

  @Override
  public Future<?> stop() {
    if (reloader != null) {
      reloader.stop();
    }
    discoveries.stop();
    return checker.close();
  }

  /** Applies a new valid config (see {@link BackendTable#reload}) and logs what changed. */
  public void reload(FairwayConfig next, String hash) {
    if (!hash.equals(table.configHash())) {
      if (table.listenersDiffer(next)) {
        LOG.warn("config version {}: proxy/admin listener settings changed; they apply at the next restart",
            table.configVersion() + 1);
      }
      onNewConfig.accept(next);
      checker.retain(next.services().stream().map(ServiceConfig::tls).toList());
    }
    table.reload(next, hash, System.nanoTime()).ifPresent(r ->
        LOG.info("config version {} (sha {}) is live: {} backends added, {} changed, {} draining",
            r.version(), r.hash(), r.added(), r.changed(), r.draining()));
    discoveries.reconcile(next.services());
  }

  /** The table's requests: timers, logs, metrics and the event bus. */
  private final class Effects implements TableListener {
    @Override
    public void published(BalancerSnapshot next) {
      metrics.syncTopology(table.backendIds(), table.serviceNames());
      discoveries.publishSources(table);
      table.backends().forEach(BalancerVerticle.this::updateReadings);
      snapshot = next;
      vertx.eventBus().publish(Addresses.SNAPSHOT, next, LOCAL);
    }

    @Override
    public void transitioned(String id, Transition t) {
      LOG.info("backend {} {}", id, t);
      metrics.transition(id, t.to().jsonName());
    }

    @Override
    public void checkDue(String id, long delayMs) {
      scheduleCheck(probes.computeIfAbsent(id, Probe::new), delayMs);
    }

    @Override
    public void checkNow(String id) {
      Probe p = probes.get(id);
      if (p != null && p.timer >= 0) {
        vertx.cancelTimer(p.timer);
        p.timer = -1;
        runCheck(p);
      }
    }

    @Override
    public void removed(String id, String why) {
      Probe p = probes.remove(id);
      if (p != null) {
        p.dead = true;
        if (p.timer >= 0) {
          vertx.cancelTimer(p.timer);
        }
      }
      LOG.info("backend {} {}", id, why);
    }

    @Override
    public void note(String line) {
      LOG.info(line);
    }

    @Override
    public void panic(String service, boolean on, String line) {
      if (on) {
        LOG.warn(line);
      } else {
        LOG.info(line);
      }
      metrics.panic(service, on);
    }
  }

  private void updateReadings(BackendView b) {
    metrics.readings(b.id()).set(b.state().jsonName(), b.weight(), b.utilization(), b.badLoadReports());
  }

  // ---- active health checks

  private void scheduleCheck(Probe p, long delayMs) {
    if (p.timer >= 0) {
      vertx.cancelTimer(p.timer);
    }
    p.timer = vertx.setTimer(Math.max(1, delayMs), id -> {
      p.timer = -1;
      runCheck(p);
    });
  }

  private void runCheck(Probe p) {
    if (p.dead) {
      return;
    }
    table.checkTarget(p.id).ifPresent(target -> checker.check(target.host(), target.port(), target.settings(),
        target.tls(), target.h2c())
        .onSuccess(r -> {
          if (p.dead || probes.get(p.id) != p) {
            return;
          }
          table.onCheck(p.id, outcome(r), System.nanoTime());
          armEjectionTimer();
        }));
  }

  /** What a health check's answer means to the table; the one place that judges it as passing. */
  private static CheckOutcome outcome(HealthChecker.CheckResult r) {
    return new CheckOutcome(r.status(), r.lameDuck(), r.passed(), r.loadReport(), r.failure());
  }

  /** Keeps one timer at the end of the earliest passive ejection. */
  private void armEjectionTimer() {
    OptionalLong next = table.nextEjectionEndNanos();
    if (ejectionTimer >= 0) {
      if (next.isPresent() && next.getAsLong() == ejectionTimerAt) {
        return;
      }
      vertx.cancelTimer(ejectionTimer);
      ejectionTimer = -1;
    }
    next.ifPresent(at -> {
      ejectionTimerAt = at;
      ejectionTimer = vertx.setTimer(Math.max(1, (at - System.nanoTime()) / 1_000_000), id -> {
        ejectionTimer = -1;
        table.endEjections(System.nanoTime());
        armEjectionTimer();
      });
    });
  }

  // ---- cluster membership

  /**
   * A new cluster position: recompute every subset with the new client id and count. Logs, e.g.,
   * {@code cluster: edge-b (client 1 of 3) kept its id; edge-c left, id 2 reserved for 30 s}.
   */
  private void onMembership(JsonObject m) {
    int id = m.getInteger("clientId");
    int count = m.getInteger("clientCount");
    nodeName = m.getString("nodeName");
    if (id == table.clientId() && count == table.clientCount()) {
      table.moveClient(id, count, System.nanoTime());
      LOG.info("cluster: {} (client {} of {}) kept its id; {}", nodeName, id, count, m.getString("reason"));
      return;
    }
    LOG.info("cluster: {} is now client {} of {} (was {} of {}), subsets recomputed; {}", nodeName, id, count,
        table.clientId(), table.clientCount(), m.getString("reason"));
    table.moveClient(id, count, System.nanoTime());
    table.subsets().forEach((service, subset) -> LOG.info("service {} subset {}", service, subset));
  }

  // ---- admin commands

  /** An admin command from this member's admin listener: answer it, and relay it on success. */
  private void onCommand(Message<JsonObject> m) {
    BalancerCommand cmd;
    try {
      cmd = BalancerCommand.fromJson(m.body());
    } catch (IllegalArgumentException e) {
      m.fail(400, e.getMessage());
      return;
    }
    Answer answer;
    try {
      answer = execute(cmd);
    } catch (CommandRejected e) {
      m.fail(e.status(), e.getMessage());
      return;
    }
    m.reply(answer.json(), new DeliveryOptions().addHeader(Addresses.STATUS_HEADER, Integer.toString(answer.status())));
    if (relay != null) {
      relay.applied(cmd, answer.ids());
    }
  }

  /**
   * Applies a command to the table.
   *
   * @return the answer: the backend's JSON, or for {@code add-backends} the array of them (201 if
   *         any is new, 200 for updates alone)
   * @throws CommandRejected with the status the caller gets
   */
  private Answer execute(BalancerCommand cmd) {
    long now = System.nanoTime();
    if (cmd instanceof BalancerCommand.LameDuck c) {
      table.lameDuck(c.id(), c.on(), now);
      return new Answer(TableJson.backend(table, c.id(), null, slots.view()), 200, List.of());
    }
    if (cmd instanceof BalancerCommand.AddBackends c) {
      JsonArray out = new JsonArray();
      var view = slots.view();
      BackendsAdded added = table.addBackends(c.service(), JsonValues.toPlain(c.backends()), now);
      added.ids().forEach(id -> out.add(TableJson.backend(table, id, c.service(), view)));
      return new Answer(out, added.created() ? 201 : 200, added.ids());
    }
    BalancerCommand.RemoveBackend c = (BalancerCommand.RemoveBackend) cmd;
    table.removeBackend(c.service(), c.id(), now);
    return new Answer(TableJson.backend(table, c.id(), c.service(), slots.view()), 200, List.of());
  }

  /** A discovery's command: applied here alone (not relayed), a rejection logged. */
  private void applyLocally(BalancerCommand cmd) {
    try {
      execute(cmd);
    } catch (CommandRejected e) {
      LOG.warn("{} rejected: {}", cmd.describe(), e.getMessage());
    }
  }

  /** The state of a backend in a service; {@code null} if the service does not list it. */
  private BackendState stateIn(String service, String id) {
    BackendView b = table.members(service).contains(id) ? table.backend(id) : null;
    return b == null ? null : b.state();
  }

  /** A command's answer to the admin caller: its JSON and HTTP status, and the ids an add-backends named. */
  private record Answer(Object json, int status, List<String> ids) {
  }
}
