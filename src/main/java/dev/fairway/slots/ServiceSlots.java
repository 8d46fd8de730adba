package dev.fairway.slots;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.SplitMix64;
import dev.fairway.balancer.Strategies;
import dev.fairway.balancer.Strategy;
import dev.fairway.config.BalancingSettings;
import dev.fairway.config.OutlierSettings;
import dev.fairway.config.StrategyName;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One service's part of the {@link SlotTable}: its members, strategies, service-wide cap and queue
 * of waiters (by criticality, FIFO within a class).
 *
 * <p>Example: a service with {@code maxActive} 5 over a pool of capacity 50 has at most five
 * requests in flight, and its sixth request waits even while the pool has free slots.
 *
 * <p>Each event loop (a <em>lane</em>) picks with a strategy instance of its own, without a lock;
 * a lane notices a changed configuration through {@link #generation} and rebuilds its instance on
 * its own thread. The {@link #shared} instance serves the locked paths (waiters, slot-queue).
 */
public final class ServiceSlots {
  /** One event loop's strategy; touched only by that loop. */
  private static final class Lane {
    Strategy strategy;
    Plan plan;
    int generation = -1;
  }

  /** What a strategy instance is built from; a different recipe means new instances. */
  record Recipe(StrategyName name, BalancingSettings balancing, long seed) {
  }

  /**
   * A recipe and the family its instances come from: every lane's instance and the shared one
   * share the family's per-backend signals. Each lane's instance gets a seed of its own (the
   * recipe's for lane 0), so lanes that pick at random do not all draw the same sequence.
   */
  record Plan(Recipe recipe, Strategies.Family family) {
    Plan(Recipe recipe) {
      this(recipe, Strategies.family(recipe.name(), recipe.balancing()));
    }

    Strategy create(int lane) {
      long seed = recipe.seed();
      return family.create(lane == 0 ? seed : seed ^ new SplitMix64(lane).nextLong());
    }
  }

  private final String name;
  private final Lane[] lanes;
  volatile Plan plan;
  volatile List<Endpoint> members = List.of();
  volatile int generation;
  volatile int waiting;
  volatile boolean removed;
  /** Whether picks may run without the table's lock (every strategy but slot-queue). */
  volatile boolean lockFree;
  volatile Strategy shared;
  int maxWaiting;
  volatile int maxActive;
  volatile OutlierSettings outliers = OutlierSettings.DEFAULTS;
  volatile SlowStart slowStart = SlowStart.OFF;
  final AtomicInteger active = new AtomicInteger();
  /** Queued waiters, by class and then oldest first; every one of them is WAITING (cancel unlinks at once). */
  final WaitQueue queue = new WaitQueue();

  ServiceSlots(String name, int laneCount) {
    this.name = name;
    this.lanes = new Lane[laneCount];
    for (int i = 0; i < laneCount; i++) {
      lanes[i] = new Lane();
    }
  }

  public String name() {
    return name;
  }

  /** The ids of the members picks choose among now (available or not), in order. */
  public List<String> memberIds() {
    return members.stream().map(Endpoint::id).toList();
  }

  /** The strategy of {@code lane}, rebuilt or reset on that lane's thread after a change. */
  Strategy local(int lane) {
    Strategy s = shared;
    if (s.sharedAcrossLanes()) {
      return s;
    }
    Lane l = lanes[lane < lanes.length ? lane : 0];
    int g = generation;
    if (l.generation != g) {
      Plan p = plan;
      if (l.plan != p) {
        l.strategy = p.create(lane);
        l.plan = p;
      }
      l.strategy.reset(members);
      l.generation = g;
    }
    return l.strategy;
  }

  /**
   * Takes its {@code spec}: a new strategy family if the strategy or its tuning changed, caps,
   * settings and members (looked up in {@code endpoints}; each member's entry in {@code sharing}
   * gets this service). Under the table's lock.
   */
  void configure(ServiceSpec spec, long tableSeed, Map<String, Endpoint> endpoints,
                 Map<Endpoint, List<ServiceSlots>> sharing) {
    Recipe r = new Recipe(spec.strategy(), spec.balancing(), tableSeed ^ stableHash(spec.name()));
    if (plan == null || !r.equals(plan.recipe())) {
      plan = new Plan(r);
      shared = plan.create(0);
      lockFree = spec.strategy() != StrategyName.SLOT_QUEUE;
    }
    maxWaiting = spec.maxWaiting();
    maxActive = spec.maxActive();
    outliers = spec.outliers();
    slowStart = spec.slowStart();
    List<Endpoint> next = new ArrayList<>(spec.memberIds().size());
    for (String id : spec.memberIds()) {
      Endpoint e = endpoints.get(id);
      if (e != null) {
        next.add(e);
        sharing.computeIfAbsent(e, k -> new ArrayList<>(2)).add(this);
      }
    }
    members = List.copyOf(next);
    plan.family().retain(members);
    shared.reset(members);
    generation++;
  }

  /** FNV-1a of the name: unlike {@code String.hashCode}'s use, fixed by this code for all JVMs. */
  private static long stableHash(String s) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < s.length(); i++) {
      h = (h ^ s.charAt(i)) * 0x100000001b3L;
    }
    return h;
  }

  /** Takes a place under the service-wide cap, if there is one. */
  boolean takeServiceSlot() {
    int cap = maxActive;
    if (cap == 0) {
      active.incrementAndGet();
      return true;
    }
    while (true) {
      int a = active.get();
      if (a >= cap) {
        return false;
      }
      if (active.compareAndSet(a, a + 1)) {
        return true;
      }
    }
  }

  void releaseServiceSlot() {
    active.decrementAndGet();
  }

  boolean belowCap() {
    int cap = maxActive;
    return cap == 0 || active.get() < cap;
  }

  /** The waiter to serve next (see {@link WaitQueue#head}), or {@code null}. Under the lock. */
  Waiter head() {
    return queue.head();
  }

  /**
   * Queues {@code w}, announced in {@link #waiting} already, unless {@link #maxWaiting} others wait:
   * then the newest waiter of the least important class below {@code w}'s is refused (CANCELLED,
   * told by {@link Waiter#shed}) to make room, or, if none ranks below it, {@code w} is. Under the lock.
   *
   * @return {@link Admission#QUEUED} or {@link Admission#QUEUE_FULL}
   */
  Admission enqueue(Waiter w, long seq, long nowNanos) {
    if (waiting > maxWaiting) {
      Waiter victim = queue.newestBelow(w.criticality());
      if (victim == null) {
        waiting--;
        return Admission.QUEUE_FULL;
      }
      queue.remove(victim);
      waiting--;
      victim.state = Waiter.State.CANCELLED;
      victim.shed();
    }
    w.state = Waiter.State.WAITING;
    w.seq = seq;
    w.enqueuedNanos = nowNanos;
    queue.add(w);
    return Admission.QUEUED;
  }

  /** Takes a waiter out of the queue, wherever it is. Under the lock. */
  void unlink(Waiter w) {
    queue.remove(w);
  }

  /** How many waiters the queue holds (for tests). Under the lock. */
  int queued() {
    return queue.size();
  }

  boolean anyAvailable() {
    for (Endpoint e : members) {
      if (e.available()) {
        return true;
      }
    }
    return false;
  }
}
