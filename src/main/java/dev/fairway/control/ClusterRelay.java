package dev.fairway.control;

import dev.fairway.metrics.FairwayMetrics;
import dev.fairway.table.CommandRejected;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The balancer's side of cluster mode: relays the admin commands this member applied to every
 * other member, applies theirs, replays the cluster's recorded runtime changes, and relays a
 * {@code Lame-Duck: true} seen here.
 *
 * <p>Example: {@code POST /api/backends/b3/lame-duck} on member A: A's balancer applies it and
 * calls {@link #applied}, which stamps it ({@link Stamp}), publishes
 * {@code {"sentAt":…,"changes":[{"key":"lame-duck/b3",…}]}} on {@link Addresses#CLUSTER_COMMANDS}
 * and asks the recorder ({@link Addresses#RUNTIME_RECORD}) to keep it in the cluster. Member B
 * applies the change unless it already applied a later one for {@code lame-duck/b3}, and records
 * {@code now - sentAt} in {@code fairway_cluster_command_delay_seconds}. A member that joins later
 * gets the recorded changes on {@link Addresses#CLUSTER_REPLAY} and logs
 * {@code cluster: replayed 1 runtime change from the cluster (1 lame duck)}.
 *
 * <p>A {@code Lame-Duck: true} response header seen here goes out as
 * {@code {"sentAt":…,"lameDuckHeader":"b3"}}: every member then treats b3 as if its own proxy had
 * seen the header, and lets it back after one of its own health checks passes without it. It is
 * not recorded: a member that joins later sees the header in its own checks.
 */
final class ClusterRelay {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterRelay.class);
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);

  private final Vertx vertx;
  private final String origin;
  private final Function<BalancerCommand, Object> apply;
  private final Consumer<String> lameDuckHeader;
  private final FairwayMetrics metrics;
  /** The stamp of the last change applied here, by key: an older one arriving later is skipped. */
  private final Map<String, Stamp> applied = new HashMap<>();
  /** The other balancers that said hello, by origin. */
  private final Set<String> peers = new HashSet<>();

  /**
   * @param origin         this balancer's name in stamps and the {@code origin} header
   * @param apply          applies a command to the table (throws {@link CommandRejected})
   * @param lameDuckHeader treats a backend id as seen with {@code Lame-Duck: true}
   */
  ClusterRelay(Vertx vertx, String origin, Function<BalancerCommand, Object> apply, Consumer<String> lameDuckHeader,
               FairwayMetrics metrics) {
    this.vertx = vertx;
    this.origin = origin;
    this.apply = apply;
    this.lameDuckHeader = lameDuckHeader;
    this.metrics = metrics;
  }

  /**
   * Listens for other members' commands and for replays; once registered cluster-wide, says hello
   * to the other members (see {@link #onHello}).
   */
  Future<Void> start() {
    vertx.eventBus().<JsonArray>localConsumer(Addresses.CLUSTER_REPLAY, m -> m.reply(replay(m.body())));
    return vertx.eventBus().<JsonObject>consumer(Addresses.CLUSTER_COMMANDS, this::onMessage).completion()
        .onSuccess(v -> publish(new JsonObject().put("hello", true)));
  }

  /**
   * A member said hello: the first time, answer with a hello of our own. The event bus opens its
   * connection to a member and looks up where an address is registered on the first message sent
   * there; without this the first real command to a new member paid for both (about 100 ms on
   * loopback instead of a few). Each member answers each other member once, so a join costs
   * about two messages per member.
   */
  private void onHello(String from) {
    if (peers.add(from)) {
      publish(new JsonObject().put("hello", true));
    }
  }

  /**
   * A command this member's admin API applied: publish it to the others and have it recorded.
   *
   * @param ids for {@code add-backends}, the body's backend ids in order
   */
  void applied(BalancerCommand cmd, List<String> ids) {
    long now = nowMicros();
    List<RuntimeChange> changes = RuntimeChange.of(cmd, ids, new Stamp(now, origin));
    JsonArray json = new JsonArray();
    for (RuntimeChange c : changes) {
      applied.put(c.key(), c.stamp());
      json.add(c.toJson());
    }
    publish(new JsonObject().put("sentAt", now).put("changes", json));
    vertx.eventBus().send(Addresses.RUNTIME_RECORD, json, LOCAL);
  }

  /** This member's proxy saw {@code Lame-Duck: true} from {@code id}: tell the others at once. */
  void lameDuckSeen(String id) {
    publish(new JsonObject().put("sentAt", nowMicros()).put("lameDuckHeader", id));
  }

  private void publish(JsonObject body) {
    vertx.eventBus().publish(Addresses.CLUSTER_COMMANDS, body, new DeliveryOptions().addHeader("origin", origin));
  }

  private void onMessage(Message<JsonObject> m) {
    if (origin.equals(m.headers().get("origin"))) {
      return;
    }
    JsonObject body = m.body();
    if (body.getBoolean("hello", false)) {
      onHello(m.headers().get("origin"));
      return;
    }
    String lameDuck = body.getString("lameDuckHeader");
    long sentAt = body.getLong("sentAt", 0L);
    if (lameDuck != null) {
      lameDuckHeader.accept(lameDuck);
      LOG.info("cluster: another member saw Lame-Duck: true from {}{}", lameDuck, delay(sentAt));
    } else {
      List<String> done = new ArrayList<>();
      for (RuntimeChange c : parse(body.getJsonArray("changes", new JsonArray()))) {
        if (!fresh(c)) {
          continue;
        }
        String outcome = execute(c);
        if (outcome == null) {
          done.add(c.command().describe());
        } else {
          LOG.warn("cluster: {} from another member not applied here: {}", c.command().describe(), outcome);
        }
      }
      String after = delay(sentAt);
      done.forEach(d -> LOG.info("cluster: applied {} from another member{}", d, after));
    }
  }

  /** Records the delay since {@code sentAt} in the meter, and says it for the log line. */
  private String delay(long sentAt) {
    if (sentAt <= 0) {
      return "";
    }
    long micros = Math.max(0, nowMicros() - sentAt);
    metrics.clusterCommandDelay(micros);
    return String.format(java.util.Locale.ROOT, " (%.1f ms after it was sent)", micros / 1000.0);
  }

  /**
   * Applies the recorded changes this member has not applied yet, backends first, and logs one line.
   *
   * @return counts of what was applied, e.g. {@code {"lame ducks":2,"added backends":1}}
   */
  private JsonObject replay(JsonArray recorded) {
    List<RuntimeChange> changes = new ArrayList<>(parse(recorded));
    changes.sort(RuntimeChange.REPLAY_ORDER);
    Map<String, Integer> counts = new TreeMap<>();
    int total = 0;
    int skipped = 0;
    for (RuntimeChange c : changes) {
      if (!fresh(c)) {
        continue;
      }
      String outcome = execute(c);
      if (outcome != null) {
        skipped++;
        LOG.info("cluster: recorded {} not applicable here: {}", c.command().describe(), outcome);
        continue;
      }
      total++;
      counts.merge(kind(c.command()), 1, Integer::sum);
    }
    LOG.info("cluster: replayed {} runtime change{} from the cluster{}{}", total, total == 1 ? "" : "s",
        counts.isEmpty() ? "" : " (" + String.join(", ", counts.entrySet().stream()
            .map(e -> e.getValue() + " " + (e.getValue() == 1 ? singular(e.getKey()) : e.getKey())).toList()) + ")",
        skipped == 0 ? "" : "; " + skipped + " not applicable here");
    JsonObject out = new JsonObject();
    counts.forEach(out::put);
    return out;
  }

  private static String kind(BalancerCommand cmd) {
    if (cmd instanceof BalancerCommand.LameDuck c) {
      return c.on() ? "lame ducks" : "cleared lame ducks";
    }
    return cmd instanceof BalancerCommand.AddBackends ? "added backends" : "removed backends";
  }

  private static String singular(String kind) {
    return kind.substring(0, kind.length() - 1);
  }

  /** Whether {@code c} is later than what this member applied for its key; if so it is noted as applied. */
  private boolean fresh(RuntimeChange c) {
    if (!c.stamp().after(applied.get(c.key()))) {
      return false;
    }
    applied.put(c.key(), c.stamp());
    return true;
  }

  /** Applies a change; null if it applied, else why not (status and message). */
  private String execute(RuntimeChange c) {
    try {
      apply.apply(c.command());
      return null;
    } catch (CommandRejected e) {
      return e.status() + " " + e.getMessage();
    }
  }

  private static List<RuntimeChange> parse(JsonArray json) {
    List<RuntimeChange> out = new ArrayList<>(json.size());
    for (int i = 0; i < json.size(); i++) {
      try {
        out.add(RuntimeChange.fromJson(json.getJsonObject(i)));
      } catch (IllegalArgumentException | ClassCastException e) {
        LOG.warn("cluster: ignoring a runtime change: {}", e.getMessage());
      }
    }
    return out;
  }

  /** Wall-clock microseconds since the epoch (comparable between the members of one machine or NTP domain). */
  static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }
}
