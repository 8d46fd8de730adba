package dev.fairway.slots;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.Outcome;
import dev.fairway.balancer.Strategy;
import dev.fairway.balancer.WeightEpoch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The process-wide table of capacity slots: per backend the active count and capacity, per
 * service the strategy, the service-wide cap and a FIFO of waiters (seed 000's coordinator).
 *
 * <p>Example: b1 with capacity 2 and a service over b1 alone: two {@link #acquire acquires} are
 * {@code GRANTED}, the third is {@code QUEUED}; when the first {@link #release releases}, the
 * slot goes straight to the queued waiter, whose {@link Waiter#granted} is called with b1.
 *
 * <p>Thread-safe, and lock-free on the common path: while a service has no waiters, an event
 * loop picks with its own strategy instance (its <em>lane</em>) and takes the slot with a
 * compare-and-set on the backend's active count, so caps hold across all event loops without a
 * lock. Queueing, cancelling, handing a freed slot to a waiter, slot-queue services and
 * reconfiguration take the table's lock. A request that queues first announces itself
 * ({@code waiting}, volatile) and then looks for a slot once more, while a release first gives its
 * slot back and then looks for waiters: one of the two always sees the other, so no wake-up is
 * lost. Time comes in as {@code nowNanos}.
 */
public final class SlotTable {
  private final long seed;
  private final int lanes;
  /** Moved by every weight change of this table's endpoints; strategies poll it. */
  private final WeightEpoch weightEpoch = new WeightEpoch();
  private final Map<String, Endpoint> endpoints = new HashMap<>();
  private final Map<String, ServiceSlots> services = new LinkedHashMap<>();
  private volatile Map<Endpoint, List<ServiceSlots>> servicesOf = new IdentityHashMap<>();
  private long nextSeq;

  /** A table for one event loop; see {@link #SlotTable(long, int)}. */
  public SlotTable(long seed) {
    this(seed, 1);
  }

  /**
   * @param seed  seed handed to strategies that choose at random
   * @param lanes number of event loops that acquire (lane indexes 0 .. lanes - 1)
   */
  public SlotTable(long seed, int lanes) {
    this.seed = seed;
    this.lanes = Math.max(1, lanes);
  }

  /**
   * Makes the table match the balancer's view: creates, updates or drops backends and services.
   * Requests in flight keep their slots; a lowered capacity only stops new grants; waiters are
   * then served by whatever became free.
   */
  public synchronized void apply(List<EndpointSpec> endpointSpecs, List<ServiceSpec> serviceSpecs, long nowNanos) {
    Map<String, Endpoint> keep = new HashMap<>();
    for (EndpointSpec spec : endpointSpecs) {
      Endpoint e = endpoints.get(spec.id());
      if (e == null || !e.host().equals(spec.host()) || e.port() != spec.port()) {
        e = new Endpoint(spec.id(), spec.host(), spec.port(), weightEpoch);
      }
      e.setCapacity(spec.capacity());
      e.setWeight(spec.weight());
      e.setAvailable(spec.available());
      keep.put(spec.id(), e);
    }
    for (Endpoint gone : endpoints.values()) {
      if (keep.get(gone.id()) != gone) {
        gone.setAvailable(false);
      }
    }
    endpoints.clear();
    endpoints.putAll(keep);

    Map<String, ServiceSlots> next = new LinkedHashMap<>();
    Map<Endpoint, List<ServiceSlots>> sharing = new IdentityHashMap<>();
    for (ServiceSpec spec : serviceSpecs) {
      ServiceSlots s = services.get(spec.name());
      if (s == null) {
        s = new ServiceSlots(spec.name(), lanes);
      }
      ServiceSlots.Recipe recipe = new ServiceSlots.Recipe(spec.strategy(), spec.balancing(),
          seed ^ stableHash(spec.name()));
      if (s.plan == null || !recipe.equals(s.plan.recipe())) {
        s.plan = new ServiceSlots.Plan(recipe);
        s.shared = s.plan.create(0);
        s.lockFree = spec.strategy() != dev.fairway.config.StrategyName.SLOT_QUEUE;
      }
      s.maxWaiting = spec.maxWaiting();
      s.maxActive = spec.maxActive();
      List<Endpoint> members = new ArrayList<>(spec.memberIds().size());
      for (String id : spec.memberIds()) {
        Endpoint e = endpoints.get(id);
        if (e != null) {
          members.add(e);
          sharing.computeIfAbsent(e, k -> new ArrayList<>(2)).add(s);
        }
      }
      s.members = List.copyOf(members);
      s.shared.reset(s.members);
      s.generation++;
      next.put(spec.name(), s);
    }
    for (ServiceSlots old : services.values()) {
      if (next.get(old.name()) != old) {
        old.removed = true;
        old.members = List.of();
        old.generation++;
      }
    }
    services.clear();
    services.putAll(next);
    servicesOf = sharing;
    dispatch(new ArrayList<>(services.values()), nowNanos);
  }

  /** The live service of that name, or {@code null}. */
  public synchronized ServiceSlots service(String name) {
    return services.get(name);
  }

  /** {@link #acquire(ServiceSlots, Waiter, long, int)} on lane 0. */
  public Admission acquire(ServiceSlots service, Waiter waiter, long nowNanos) {
    return acquire(service, waiter, nowNanos, 0);
  }

  /**
   * Takes a slot for {@code waiter} on a backend the service's strategy picks, or queues it.
   *
   * @param lane the calling event loop's index; each lane picks with a strategy of its own
   * @return {@link Admission#GRANTED} (see {@link Waiter#endpoint()}), {@link Admission#QUEUED}
   *     (the waiter is later {@link Waiter#granted granted} unless {@link #cancel cancelled}), or a
   *     rejection
   */
  public Admission acquire(ServiceSlots service, Waiter waiter, long nowNanos, int lane) {
    waiter.service = service;
    waiter.lane = lane;
    if (service.removed) {
      return Admission.NO_BACKEND;
    }
    if (service.lockFree && service.waiting == 0) {
      Endpoint e = pickAndTake(service, service.local(lane), nowNanos);
      if (e != null) {
        waiter.grant(e);
        return Admission.GRANTED;
      }
    }
    return acquireLocked(service, waiter, nowNanos);
  }

  private synchronized Admission acquireLocked(ServiceSlots service, Waiter waiter, long nowNanos) {
    if (service.removed) {
      return Admission.NO_BACKEND;
    }
    service.waiting++;
    if (service.head() == null) {
      Endpoint e = pickAndTake(service, service.shared, nowNanos);
      if (e != null) {
        service.waiting--;
        waiter.grant(e);
        return Admission.GRANTED;
      }
    }
    if (!service.anyAvailable()) {
      service.waiting--;
      return Admission.NO_BACKEND;
    }
    if (service.waiting > service.maxWaiting) {
      service.waiting--;
      return Admission.QUEUE_FULL;
    }
    waiter.state = Waiter.State.WAITING;
    waiter.seq = nextSeq++;
    waiter.enqueuedNanos = nowNanos;
    service.enqueue(waiter);
    return Admission.QUEUED;
  }

  /** Picks with {@code strategy} and takes the slot atomically; a few tries if another lane wins. */
  private static Endpoint pickAndTake(ServiceSlots service, Strategy strategy, long nowNanos) {
    if (!service.takeServiceSlot()) {
      return null;
    }
    List<Endpoint> members = service.members;
    for (int attempt = 0; attempt < 4; attempt++) {
      Endpoint e = strategy.pick(members, nowNanos);
      if (e == null) {
        break;
      }
      if (e.tryTake()) {
        return e;
      }
    }
    service.releaseServiceSlot();
    return null;
  }

  /**
   * Takes a slot at once on any member but {@code excluded}, for a retry after a failed connect;
   * never queues.
   *
   * @return {@link Admission#GRANTED} or {@link Admission#NO_BACKEND}
   */
  public synchronized Admission acquireExcept(ServiceSlots service, Waiter waiter, long nowNanos, Endpoint excluded) {
    waiter.service = service;
    if (service.removed) {
      return Admission.NO_BACKEND;
    }
    List<Endpoint> others = new ArrayList<>(service.members.size());
    for (Endpoint e : service.members) {
      if (e != excluded && e.canTake()) {
        others.add(e);
      }
    }
    if (others.isEmpty() || !service.takeServiceSlot()) {
      return Admission.NO_BACKEND;
    }
    for (Endpoint e : others) {
      if (e.tryTake()) {
        waiter.grant(e);
        return Admission.GRANTED;
      }
    }
    service.releaseServiceSlot();
    return Admission.NO_BACKEND;
  }

  /**
   * Takes a queued waiter out of the queue (timeout, client gone).
   *
   * @return {@code true} if it was still waiting; {@code false} if it was already granted (its
   *     {@link Waiter#granted} call is on its way and the caller must let it run) or never queued
   */
  public synchronized boolean cancel(Waiter waiter) {
    if (waiter.state != Waiter.State.WAITING) {
      return false;
    }
    waiter.state = Waiter.State.CANCELLED;
    waiter.service.unlink(waiter);
    waiter.service.waiting--;
    return true;
  }

  /**
   * Gives back the slot a waiter holds and hands it to the oldest waiter that can use it.
   * Releasing twice, or releasing a waiter that holds no slot, does nothing. Call it on the
   * waiter's own lane (its event loop).
   *
   * @return {@code true} if a slot was released
   */
  public boolean release(Waiter waiter, long nowNanos, long latencyNanos, boolean failed) {
    return release(waiter, nowNanos, latencyNanos, failed ? Outcome.SERVER_ERROR : Outcome.SUCCESS);
  }

  /**
   * As {@link #release(Waiter, long, long, boolean)}, with how the request ended.
   *
   * @return {@code true} if a slot was released
   */
  public boolean release(Waiter waiter, long nowNanos, long latencyNanos, Outcome outcome) {
    boolean failed = outcome.failed();
    if (!waiter.compareAndSetState(Waiter.State.GRANTED, Waiter.State.RELEASED)) {
      return false;
    }
    Endpoint e = waiter.endpoint;
    ServiceSlots s = waiter.service;
    e.release();
    s.releaseServiceSlot();
    List<ServiceSlots> sharing = servicesOf.getOrDefault(e, List.of());
    boolean needLock = !s.lockFree || s.waiting > 0;
    for (int i = 0; i < sharing.size() && !needLock; i++) {
      ServiceSlots x = sharing.get(i);
      needLock = !x.lockFree || x.waiting > 0;
    }
    if (s.lockFree) {
      s.local(waiter.lane).onComplete(e, latencyNanos, waiter.inFlight, failed, nowNanos);
    }
    if (needLock) {
      releaseLocked(e, s, sharing, nowNanos, latencyNanos, waiter.inFlight, failed);
    }
    return true;
  }

  private synchronized void releaseLocked(Endpoint e, ServiceSlots s, List<ServiceSlots> sharing, long nowNanos,
                                          long latencyNanos, int inFlight, boolean failed) {
    if (!s.lockFree) {
      s.shared.onComplete(e, latencyNanos, inFlight, failed, nowNanos);
    }
    for (ServiceSlots x : sharing) {
      x.shared.onSlotFreed(e);
    }
    List<ServiceSlots> candidates = new ArrayList<>(sharing);
    if (!sharing.contains(s)) {
      candidates.add(s);
    }
    dispatch(candidates, nowNanos);
  }

  /** Active and capacity per backend, waiting per service. */
  public synchronized TableView view() {
    Map<String, TableView.EndpointCounts> ep = new LinkedHashMap<>();
    for (Endpoint e : endpoints.values()) {
      ep.put(e.id(), new TableView.EndpointCounts(e.active(), e.capacity()));
    }
    Map<String, TableView.ServiceCounts> sv = new LinkedHashMap<>();
    for (ServiceSlots s : services.values()) {
      sv.put(s.name(), new TableView.ServiceCounts(s.active.get(), s.waiting));
    }
    return new TableView(ep, sv);
  }

  /**
   * Stops new grants on a backend at once (a {@code Lame-Duck} header seen by a proxy), until the
   * balancer's next {@link #apply} says otherwise.
   *
   * @return {@code true} if the backend was available until now
   */
  public synchronized boolean markUnavailable(String id) {
    Endpoint e = endpoints.get(id);
    if (e == null || !e.available()) {
      return false;
    }
    e.setAvailable(false);
    for (ServiceSlots s : servicesOf.getOrDefault(e, List.of())) {
      s.shared.reset(s.members);
      s.generation++;
    }
    return true;
  }

  /**
   * Sets backends' capability weights in place (the balancer recomputes them about once a
   * second); strategies read them on their next pick.
   */
  public synchronized void updateWeights(Map<String, Double> weights) {
    weights.forEach((id, w) -> {
      Endpoint e = endpoints.get(id);
      if (e != null) {
        e.setWeight(w);
      }
    });
  }

  /** Active and capacity of one backend, or {@code null} if unknown. */
  public synchronized TableView.EndpointCounts endpointCounts(String id) {
    Endpoint e = endpoints.get(id);
    return e == null ? null : new TableView.EndpointCounts(e.active(), e.capacity());
  }

  /** Active and waiting of one service, or {@code null} if unknown. */
  public synchronized TableView.ServiceCounts serviceCounts(String name) {
    ServiceSlots s = services.get(name);
    return s == null ? null : new TableView.ServiceCounts(s.active.get(), s.waiting);
  }

  /** Serves queued waiters, oldest first across {@code candidates}, while slots are free. */
  private void dispatch(List<ServiceSlots> candidates, long nowNanos) {
    while (!candidates.isEmpty()) {
      ServiceSlots best = null;
      Waiter oldest = null;
      for (int i = candidates.size() - 1; i >= 0; i--) {
        ServiceSlots x = candidates.get(i);
        Waiter h = x.belowCap() ? x.head() : null;
        if (h == null) {
          candidates.remove(i);
        } else if (oldest == null || h.seq < oldest.seq) {
          best = x;
          oldest = h;
        }
      }
      if (best == null) {
        return;
      }
      Endpoint e = pickAndTake(best, best.shared, nowNanos);
      if (e == null) {
        candidates.remove(best);
        continue;
      }
      best.unlink(oldest);
      best.waiting--;
      oldest.grant(e);
      oldest.granted(e);
    }
  }

  /** FNV-1a of the name: unlike {@code String.hashCode}'s use, fixed by this code for all JVMs. */
  private static long stableHash(String s) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < s.length(); i++) {
      h = (h ^ s.charAt(i)) * 0x100000001b3L;
    }
    return h;
  }
}
