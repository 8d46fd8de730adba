package dev.fairway.cluster;

import com.hazelcast.cluster.Cluster;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import dev.fairway.control.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the Hazelcast member list into this proxy's {@link ClientPosition} and tells the
 * balancer whenever it changes, on the local address {@link Addresses#MEMBERSHIP}.
 *
 * <p>Example: three Fairways form a cluster; the one whose node id sorts second is client 1 of 3.
 * When the first one stops, Hazelcast reports the leave, this member recomputes client 0 of 2 and
 * sends {@code {"clientId":0,"clientCount":2,"nodeId":…,"members":[…],"reason":"member … left"}};
 * the balancer recomputes its subsets.
 *
 * <p>It listens with a Hazelcast {@link MembershipListener} (Vert.x's own node listener has a
 * single slot that the clustered event bus already uses) and re-reads the member list every few
 * seconds as a safety net; only changes are sent.
 */
public final class ClusterMembership {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterMembership.class);
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);
  private static final long RECHECK_MS = 5_000;

  private final Vertx vertx;
  private final HazelcastClusterManager manager;
  private UUID listenerId;
  private long timer = -1;
  private List<String> lastMembers;

  public ClusterMembership(Vertx vertx, HazelcastClusterManager manager) {
    this.vertx = vertx;
    this.manager = manager;
  }

  /** The Hazelcast member attribute in which vertx-hazelcast keeps each member's Vert.x node id. */
  static final String NODE_ID_ATTRIBUTE = "__vertx.nodeId";

  /** This member's Vert.x node id (a UUID string vertx-hazelcast stores as a member attribute). */
  public String nodeId() {
    return manager.getNodeId();
  }

  /** The Hazelcast instance the cluster runs on (for cluster-wide maps). */
  public HazelcastInstance hazelcast() {
    return manager.getHazelcastInstance();
  }

  /** The node ids of the current members, in client-id order. */
  public List<String> members() {
    Cluster cluster = manager.getHazelcastInstance().getCluster();
    return ClientPosition.order(cluster.getMembers().stream().map(ClusterMembership::nodeIdOf).toList());
  }

  /** This member's position in the current member list. */
  public ClientPosition current() {
    return ClientPosition.among(members(), nodeId());
  }

  /** Starts listening; sends the current position at once (the balancer ignores an unchanged one). */
  public synchronized void start() {
    listenerId = manager.getHazelcastInstance().getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
        refresh("member " + describe(event.getMember()) + " joined");
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        refresh("member " + describe(event.getMember()) + " left");
      }
    });
    timer = vertx.setPeriodic(RECHECK_MS, id -> refresh("periodic membership check"));
    refresh("cluster joined");
  }

  /** Stops listening (the cluster manager itself is left by {@code vertx.close()}). */
  public synchronized void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
    if (listenerId != null) {
      try {
        manager.getHazelcastInstance().getCluster().removeMembershipListener(listenerId);
      } catch (RuntimeException e) {
        LOG.debug("membership listener not removed: {}", e.toString());
      }
      listenerId = null;
    }
  }

  private synchronized void refresh(String reason) {
    List<String> members;
    try {
      members = members();
    } catch (RuntimeException e) {
      // The Hazelcast instance is shutting down: nothing left to tell.
      LOG.debug("member list unavailable: {}", e.toString());
      return;
    }
    if (Objects.equals(members, lastMembers)) {
      return;
    }
    lastMembers = members;
    ClientPosition p = ClientPosition.among(members, nodeId());
    vertx.eventBus().send(Addresses.MEMBERSHIP, new JsonObject()
        .put("clientId", p.clientId())
        .put("clientCount", p.clientCount())
        .put("nodeId", nodeId())
        .put("members", new JsonArray(members))
        .put("reason", reason), LOCAL);
  }

  /** A member's Vert.x node id; the Hazelcast member UUID for a member that is not a Vert.x node. */
  private static String nodeIdOf(Member m) {
    String id = m.getAttribute(NODE_ID_ATTRIBUTE);
    return id != null ? id : m.getUuid().toString();
  }

  private static String describe(Member m) {
    return nodeIdOf(m) + " (" + m.getAddress() + ")";
  }
}
