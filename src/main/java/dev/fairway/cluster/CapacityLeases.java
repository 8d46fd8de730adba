package dev.fairway.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.fairway.config.ClusterSettings;
import dev.fairway.lease.DemandWindow;
import dev.fairway.lease.Fallback;
import dev.fairway.slots.SlotTable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster mode's shared capacity: every lease interval this member renews its share of each
 * backend's capacity in the Hazelcast map {@value #MAP} (one entry per backend, renewed atomically
 * by {@link RenewLease}) and applies the shares it was granted to its {@link SlotTable}.
 *
 * <p>Example: capacity 20 and three members, 80 % of the load through member 0: within a few
 * rounds member 0 holds 14 slots and the others 3 each; the backend never sees more than 20
 * requests from the three together. If member 0 cannot reach the map within the timeout (a
 * partition), it logs once and uses 20 ÷ 3 = 6 slots until a round reaches the map again.
 *
 * <p>Runs on a thread of its own (never on an event loop); every round waits at most
 * {@link #timeoutMs} for Hazelcast. A member that joins or leaves starts a round at once, which
 * drops the leaver's holdings, and so does a change of the backends this member uses (a new
 * subset or replacement gets its share within one round trip, not at the next interval).
 */
public final class CapacityLeases {
  private static final Logger LOG = LoggerFactory.getLogger(CapacityLeases.class);
  /** The Hazelcast map of leases: backend id to {@link LeaseEntries JSON} of every member's holding. */
  static final String MAP = "fairway.capacity-leases";
  private static final long DEMAND_WINDOW_MS = 1_500;

  private final HazelcastInstance hazelcast;
  private final String self;
  private final Supplier<List<String>> members;
  private final SlotTable table;
  private final long intervalMs;
  private final long timeoutMs;
  private final DemandWindow demand;
  private final Fallback fallback = new Fallback();
  private volatile ScheduledExecutorService thread;
  private UUID listenerId;

  /**
   * @param self    this member's id in the lease map (its Vert.x node id)
   * @param members the current members' ids
   */
  public CapacityLeases(HazelcastInstance hazelcast, String self, Supplier<List<String>> members, SlotTable table,
                        long intervalMs) {
    this.hazelcast = hazelcast;
    this.self = self;
    this.members = members;
    this.table = table;
    this.intervalMs = Math.max(10, intervalMs);
    this.timeoutMs = Math.max(1_000, 4 * this.intervalMs);
    this.demand = new DemandWindow(DemandWindow.samplesFor(DEMAND_WINDOW_MS, this.intervalMs));
  }

  /**
   * Starts renewing this member's shares if {@code settings.shareCapacity()} (the slot table must
   * already {@link SlotTable#shareCapacity share capacity}).
   *
   * @return the running leases, or {@code null} when capacity is not shared
   */
  public static CapacityLeases startFor(ClusterMembership membership, ClusterSettings settings, SlotTable table) {
    if (!settings.shareCapacity()) {
      return null;
    }
    CapacityLeases leases = new CapacityLeases(membership.hazelcast(), membership.nodeId(), membership::memberNodeIds, table,
        settings.leaseIntervalMs());
    leases.start();
    LOG.info("cluster: shared capacity: each backend's capacity is the cluster's, leased to the members by demand "
        + "every {} ms", settings.leaseIntervalMs());
    return leases;
  }

  /** Starts renewing now and every interval. */
  public synchronized void start() {
    thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "fairway-capacity-leases");
      t.setDaemon(true);
      return t;
    });
    listenerId = hazelcast.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
        renewSoon();
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        renewSoon();
      }
    });
    table.whenUseChanges(this::renewSoon);
    thread.scheduleWithFixedDelay(this::renewSafely, 0, intervalMs, TimeUnit.MILLISECONDS);
  }

  /** Stops renewing; the other members drop this one's holdings when it leaves the cluster. */
  public synchronized void stop() {
    if (thread != null) {
      thread.shutdownNow();
      thread = null;
    }
    if (listenerId != null) {
      try {
        hazelcast.getCluster().removeMembershipListener(listenerId);
      } catch (RuntimeException e) {
        LOG.debug("lease membership listener not removed: {}", e.toString());
      }
      listenerId = null;
    }
  }

  /** Starts a round now; takes no lock, as the slot table calls it under its own. */
  private void renewSoon() {
    ScheduledExecutorService t = thread;
    if (t != null) {
      try {
        t.execute(this::renewSafely);
      } catch (RejectedExecutionException e) {
        LOG.debug("no lease round: stopping");
      }
    }
  }

  private void renewSafely() {
    try {
      renew();
    } catch (RuntimeException e) {
      LOG.debug("capacity lease round failed: {}", e.toString());
    }
  }

  /** One round: renew every backend's lease, or fall back for those the map did not answer in time. */
  private void renew() {
    Map<String, Integer> capacities = new LinkedHashMap<>();
    Map<String, Integer> inFlight = new LinkedHashMap<>();
    table.view().endpoints().forEach((id, c) -> {
      capacities.put(id, c.capacity());
      inFlight.put(id, c.active());
    });
    Map<String, Integer> used = table.demand(); // only the backends in this member's subsets
    demand.record(used);
    Map<String, Integer> local = table.shares();
    List<String> live;
    try {
      live = members.get();
    } catch (RuntimeException e) {
      live = null; // the Hazelcast instance is shutting down or cut off
    }
    Map<String, CompletableFuture<Integer>> pending = new LinkedHashMap<>();
    String failure = live == null ? "member list unavailable" : null;
    if (live != null) {
      try {
        IMap<String, String> map = hazelcast.getMap(MAP);
        long now = System.currentTimeMillis();
        for (Map.Entry<String, Integer> c : capacities.entrySet()) {
          String id = c.getKey();
          // Until the new share is applied here this member may still fill its current one: claim both.
          int claim = Math.max(inFlight.getOrDefault(id, 0), local.getOrDefault(id, 0));
          pending.put(id, map.submitToKey(id, new RenewLease(self, c.getValue(), claim, demand.peak(id), now, live,
              used.containsKey(id))).toCompletableFuture());
        }
      } catch (RuntimeException e) {
        failure = e.getClass().getSimpleName(); // the backends not submitted yet fall back
      }
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    Map<String, Integer> shares = new LinkedHashMap<>();
    Map<String, Integer> missed = new LinkedHashMap<>(capacities);
    for (Map.Entry<String, CompletableFuture<Integer>> p : pending.entrySet()) {
      try {
        shares.put(p.getKey(), p.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        missed.remove(p.getKey());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        failure = e.getClass().getSimpleName();
      }
    }
    if (missed.isEmpty() && live != null) {
      if (fallback.reached(live.size())) {
        LOG.info("cluster: capacity lease map reachable again; shares follow demand again ({} members)", live.size());
      }
    } else {
      shares.putAll(fallback.unreachable(missed));
      if (fallback.entered()) {
        LOG.warn("cluster: capacity lease map not reachable ({}); each backend gets capacity ÷ {} (last known "
            + "member count) until it is", failure, fallback.lastMembers());
      }
    }
    table.setShares(shares, System.nanoTime());
  }
}
