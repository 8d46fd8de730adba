package dev.fairway.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.map.IMap;
import dev.fairway.control.Addresses;
import dev.fairway.control.RuntimeChange;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the cluster's runtime changes (admin commands applied on any member) in the Hazelcast map
 * {@value #MAP}, one entry per backend and kind, and replays them to this member's balancer when
 * it joins, after it re-merges from a split, and when another member joins (the larger side of
 * a split learns the smaller side's later changes that way).
 *
 * <p>Example: {@code POST /api/backends/b3/lame-duck} on member A puts
 * {@code lame-duck/b3 -> {"key":…,"at":…,"origin":…,"command":{"op":"lame-duck","id":"b3","on":true}}};
 * the {@code DELETE} of it later replaces that entry with {@code "on":false}. Member C, started
 * afterwards, reads the map and hands every entry to its balancer ({@link Addresses#CLUSTER_REPLAY}),
 * which applies those newer than what it applied itself and logs
 * {@code cluster: replayed 1 runtime change from the cluster (1 lame duck)}.
 *
 * <p>An entry is replaced only by a later stamp, so two members writing the same key keep the
 * later change. Every Hazelcast call runs on a worker thread, never on an event loop.
 */
public final class RuntimeState {
  /** The Hazelcast map of runtime changes, by key ({@link RuntimeChange#key()}); values are JSON text. */
  public static final String MAP = "fairway.runtime";
  private static final Logger LOG = LoggerFactory.getLogger(RuntimeState.class);
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);

  private final Vertx vertx;
  private final HazelcastInstance hazelcast;
  private MessageConsumer<JsonArray> consumer;
  private UUID lifecycleListener;
  private UUID membershipListener;

  public RuntimeState(Vertx vertx, HazelcastInstance hazelcast) {
    this.vertx = vertx;
    this.hazelcast = hazelcast;
  }

  /** Records the changes this member's balancer makes from now on, and replays what the cluster has. */
  public Future<JsonObject> start() {
    consumer = vertx.eventBus().localConsumer(Addresses.RUNTIME_RECORD, m -> record(m.body()));
    lifecycleListener = hazelcast.getLifecycleService().addLifecycleListener(e -> {
      if (e.getState() == LifecycleEvent.LifecycleState.MERGED) {
        LOG.info("cluster: merged back after a split; replaying the cluster's runtime changes");
        replay();
      }
    });
    // The larger side of a split gets no MERGED event: it replays when the others come back, so
    // that a later change made on the smaller side (kept by the map's merge policy) applies here too.
    membershipListener = hazelcast.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
        replay();
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
      }
    });
    return replay();
  }

  /** Stops recording (the map itself stays with the cluster). */
  public void stop() {
    if (consumer != null) {
      consumer.unregister();
    }
    if (lifecycleListener != null) {
      try {
        if (membershipListener != null) {
          hazelcast.getCluster().removeMembershipListener(membershipListener);
        }
        hazelcast.getLifecycleService().removeLifecycleListener(lifecycleListener);
      } catch (RuntimeException e) {
        LOG.debug("lifecycle listener not removed: {}", e.toString());
      }
    }
  }

  /** Reads every recorded change and has the balancer apply them; completes with its counts. */
  public Future<JsonObject> replay() {
    return vertx.<JsonArray>executeBlocking(() -> {
      JsonArray all = new JsonArray();
      map().values().forEach(v -> all.add(new JsonObject(v)));
      return all;
    }, false)
        .compose(all -> vertx.eventBus().<JsonObject>request(Addresses.CLUSTER_REPLAY, all, LOCAL))
        .map(reply -> reply.body())
        .onFailure(e -> LOG.warn("cluster: runtime changes not replayed: {}", e.toString()));
  }

  private void record(JsonArray changes) {
    vertx.executeBlocking(() -> {
      IMap<String, String> map = map();
      for (int i = 0; i < changes.size(); i++) {
        putIfLater(map, RuntimeChange.fromJson(changes.getJsonObject(i)));
      }
      return null;
    }, true).onFailure(e -> LOG.warn("cluster: runtime change not recorded: {}", e.toString()));
  }

  /** Puts {@code change} unless the map holds a later one for its key (compare-and-set, retried). */
  static void putIfLater(IMap<String, String> map, RuntimeChange change) {
    String text = change.toJson().encode();
    String old = map.get(change.key());
    while (true) {
      if (old == null) {
        old = map.putIfAbsent(change.key(), text);
        if (old == null) {
          return;
        }
      } else if (!change.stamp().after(RuntimeChange.fromJson(new JsonObject(old)).stamp())) {
        return;
      } else if (map.replace(change.key(), old, text)) {
        return;
      } else {
        old = map.get(change.key());
      }
    }
  }

  private IMap<String, String> map() {
    return hazelcast.getMap(MAP);
  }
}
