package dev.fairway.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.fairway.control.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this proxy's subsetting client id in the cluster's {@link IdAssignment} (one entry of a
 * Hazelcast map, claimed by node name) and tells the balancer its {@link ClientPosition} whenever
 * the assignment changes, on the local address {@link Addresses#MEMBERSHIP}.
 *
 * <p>Example: members {@code a, b, c} hold ids 0, 1, 2. {@code b} restarts: Hazelcast reports
 * it left; the first member to react reserves id 1 for {@code b} (the count stays 3, so no subset
 * changes) and every member logs {@code cluster: a (client 0 of 3) kept its id; b left, id 1
 * reserved for 30 s}. The new {@code b} joins, reads the entry and reclaims id 1. Had it stayed
 * away past {@code cluster.reclaimMs}, {@code c} would have moved into id 1.
 *
 * <p>Each member names itself with the Hazelcast member attribute {@link #NAME_ATTRIBUTE} before it
 * joins. Updates run on one thread of this class: on Hazelcast membership events (Vert.x's own
 * node listener has a single slot that the clustered event bus already uses), when a reservation
 * runs out, and every few seconds as a safety net. An update reads the entry; only if the
 * assignment must change does it take the entry's lock, re-read and write, so every member may
 * write and all compute the same answer. Deadlines use the cluster's clock. A member that cannot
 * reach the map keeps its last id and retries.
 */
public final class ClusterMembership {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterMembership.class);
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);
  private static final long RECHECK_MS = 5_000;
  private static final long LOCK_WAIT_S = 5;
  private static final long LOCK_LEASE_S = 30;
  /** The Hazelcast member attribute holding each member's node name. */
  public static final String NAME_ATTRIBUTE = "fairway.nodeName";
  /** The Hazelcast member attribute in which vertx-hazelcast keeps each member's Vert.x node id. */
  static final String NODE_ID_ATTRIBUTE = "__vertx.nodeId";
  static final String MAP = "fairway.cluster";
  static final String KEY = "client-ids";

  private final Vertx vertx;
  private final HazelcastClusterManager manager;
  private final String nodeName;
  private final long graceMs;
  private final ScheduledExecutorService worker;
  private UUID listenerId;
  private ScheduledFuture<?> expiry;
  /** The assignment this member saw last (worker thread only). */
  private IdAssignment seen = IdAssignment.EMPTY;
  private ClientPosition position;

  /**
   * @param nodeName the name given to {@link #name} before joining
   * @param graceMs  how long a departed member's id stays reserved ({@code cluster.reclaimMs})
   */
  public ClusterMembership(Vertx vertx, HazelcastClusterManager manager, String nodeName, long graceMs) {
    this.vertx = vertx;
    this.manager = manager;
    this.nodeName = nodeName;
    this.graceMs = graceMs;
    this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "fairway-cluster-ids");
      t.setDaemon(true);
      return t;
    });
  }

  /** Publishes {@code nodeName} as this member's attribute; call before joining with {@code config}. */
  public static void name(Config config, String nodeName) {
    config.getMemberAttributeConfig().setAttribute(NAME_ATTRIBUTE, nodeName);
  }

  /** This member's Vert.x node id (a UUID string vertx-hazelcast stores as a member attribute). */
  public String nodeId() {
    return manager.getNodeId();
  }

  /** The Hazelcast instance the cluster runs on (for cluster-wide maps). */
  public HazelcastInstance hazelcast() {
    return manager.getHazelcastInstance();
  }

  /** The node ids of the current members, sorted. */
  public List<String> memberNodeIds() {
    return List.copyOf(new TreeSet<>(members().stream().map(IdAssignment.Member::nodeId).toList()));
  }

  /**
   * Claims this member's id (its reserved one if its name comes back within the grace) and
   * returns its position; blocks up to a few seconds. If the map cannot be reached, the position
   * by sorted node name.
   */
  public ClientPosition claim() {
    try {
      return worker.submit(() -> update("cluster joined", false)).get(3 * LOCK_WAIT_S, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while claiming a client id", e);
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("cluster: client id not claimed in time ({}); using the rank among sorted node names", e.toString());
      return fallback();
    }
  }

  /** This member's rank among the sorted node names; client 0 of 1 if even the member list is unavailable. */
  private ClientPosition fallback() {
    try {
      return ClientPosition.among(members().stream().map(IdAssignment.Member::name).toList(), nodeName);
    } catch (RuntimeException e) {
      return new ClientPosition(0, 1);
    }
  }

  /** Starts listening and tells the balancer the current position. */
  public void start() {
    listenerId = hazelcast().getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
        submit("member " + describe(event.getMember()) + " joined");
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        submit("member " + describe(event.getMember()) + " left");
      }
    });
    worker.execute(() -> safely("cluster joined", true));
    worker.scheduleWithFixedDelay(() -> safely("periodic check", false), RECHECK_MS, RECHECK_MS,
        TimeUnit.MILLISECONDS);
  }

  /** Stops listening (the cluster manager itself is left by {@code vertx.close()}). */
  public void stop() {
    worker.shutdownNow();
    if (listenerId != null) {
      try {
        hazelcast().getCluster().removeMembershipListener(listenerId);
      } catch (RuntimeException e) {
        LOG.debug("membership listener not removed: {}", e.toString());
      }
      listenerId = null;
    }
  }

  private void submit(String reason) {
    try {
      worker.execute(() -> safely(reason, false));
    } catch (RejectedExecutionException e) {
      LOG.debug("stopped; {} not handled", reason);
    }
  }

  /** {@link #update}, for the worker's own tasks: a failure is logged, and the next check retries. */
  private void safely(String reason, boolean tell) {
    try {
      update(reason, tell);
    } catch (RuntimeException e) {
      LOG.warn("cluster: client ids not checked after {}: {}", reason, e.toString());
    }
  }

  /**
   * Brings the shared assignment up to date and, if this member's view of it changed (or
   * {@code tell}), sends the position to the balancer.
   *
   * @return the position, the last one if the map cannot be reached
   */
  private ClientPosition update(String reason, boolean tell) {
    HazelcastInstance hz = hazelcast();
    IdAssignment current;
    long now;
    List<IdAssignment.Member> members;
    try {
      members = members();
      IMap<String, String> map = hz.getMap(MAP);
      now = hz.getCluster().getClusterTime();
      IdAssignment stored = read(map);
      current = stored.next(members, now, graceMs);
      if (current != stored) {
        current = write(map, members, now);
      }
    } catch (RuntimeException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      if (position == null) {
        position = fallback();
      }
      LOG.warn("cluster: client ids not updated after {} ({}); this proxy keeps {}", reason, e.toString(), position);
      return position;
    }
    List<IdChanges.Note> notes = IdChanges.between(seen, current, now);
    seen = current;
    armExpiry(current, now);
    ClientPosition next = new ClientPosition(current.idOf(nodeId()).orElseThrow(), current.count());
    boolean moved = !next.equals(position);
    position = next;
    notes.stream().filter(IdChanges.Note::warning).forEach(n -> LOG.warn("cluster: {}", n.text()));
    if (tell || moved || !notes.isEmpty()) {
      String why = notes.isEmpty() ? reason : notes.stream().map(IdChanges.Note::text).collect(Collectors.joining("; "));
      vertx.eventBus().send(Addresses.MEMBERSHIP, new JsonObject()
          .put("clientId", next.clientId())
          .put("clientCount", next.clientCount())
          .put("nodeId", nodeId())
          .put("nodeName", nodeName)
          .put("members", new JsonArray(byId(current)))
          .put("reason", why), LOCAL);
    }
    return next;
  }

  private static IdAssignment read(IMap<String, String> map) {
    try {
      return AssignmentJson.decode(map.get(KEY));
    } catch (IllegalArgumentException e) {
      LOG.warn("cluster: {}; starting a new one", e.getMessage());
      return IdAssignment.EMPTY;
    }
  }

  /** Under the entry's lock: re-reads, recomputes and stores the assignment. */
  private IdAssignment write(IMap<String, String> map, List<IdAssignment.Member> members, long now)
      throws InterruptedException {
    if (!map.tryLock(KEY, LOCK_WAIT_S, TimeUnit.SECONDS, LOCK_LEASE_S, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the client-id entry stayed locked for " + LOCK_WAIT_S + " s");
    }
    try {
      IdAssignment stored = read(map);
      IdAssignment next = stored.next(members, now, graceMs);
      if (next != stored) {
        map.set(KEY, AssignmentJson.encode(next));
      }
      return next;
    } finally {
      map.unlock(KEY);
    }
  }

  /** Runs an update just after the earliest reservation ends. */
  private void armExpiry(IdAssignment current, long now) {
    if (expiry != null) {
      expiry.cancel(false);
      expiry = null;
    }
    current.nextExpiry().ifPresent(until -> expiry = worker.schedule(() -> safely("a reservation ended", false),
        Math.max(0, until - now) + 50, TimeUnit.MILLISECONDS));
  }

  /** The live members: node id and name (a member without the name attribute goes by its node id). */
  private List<IdAssignment.Member> members() {
    List<IdAssignment.Member> out = new ArrayList<>();
    for (Member m : hazelcast().getCluster().getMembers()) {
      String name = m.getAttribute(NAME_ATTRIBUTE);
      out.add(new IdAssignment.Member(nodeIdOf(m), name != null ? name : nodeIdOf(m)));
    }
    if (out.stream().noneMatch(m -> m.nodeId().equals(nodeId()))) {
      out.add(new IdAssignment.Member(nodeId(), nodeName));
    }
    return out;
  }

  /** The live members' names in client-id order, reservations left out. */
  private static List<String> byId(IdAssignment a) {
    return a.live().entrySet().stream().sorted(Comparator.comparingInt(e -> e.getValue().id()))
        .map(Map.Entry::getKey).toList();
  }

  /** A member's Vert.x node id; the Hazelcast member UUID for a member that is not a Vert.x node. */
  private static String nodeIdOf(Member m) {
    String id = m.getAttribute(NODE_ID_ATTRIBUTE);
    return id != null ? id : m.getUuid().toString();
  }

  private static String describe(Member m) {
    String name = m.getAttribute(NAME_ATTRIBUTE);
    return (name != null ? name : nodeIdOf(m)) + " (" + m.getAddress() + ")";
  }
}
