package dev.fairway.slots;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.Strategies;
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
 * <p>Thread-safe: every method takes the table's lock, so caps hold across all event loops and a
 * pick plus the slot it takes is one atomic step. Time comes in as {@code nowNanos}.
 */
public final class SlotTable {
  private final long seed;
  private final Map<String, Endpoint> endpoints = new HashMap<>();
  private final Map<String, ServiceSlots> services = new LinkedHashMap<>();
  private final Map<Endpoint, List<ServiceSlots>> servicesOf = new IdentityHashMap<>();
  private long nextSeq;

  /** @param seed seed handed to strategies that choose at random */
  public SlotTable(long seed) {
    this.seed = seed;
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
        e = new Endpoint(spec.id(), spec.host(), spec.port());
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
    servicesOf.clear();
    for (ServiceSpec spec : serviceSpecs) {
      ServiceSlots s = services.get(spec.name());
      if (s == null) {
        s = new ServiceSlots(spec.name());
      }
      if (s.strategyName != spec.strategy() || !spec.balancing().equals(s.balancing)) {
        s.strategyName = spec.strategy();
        s.balancing = spec.balancing();
        s.strategy = Strategies.create(spec.strategy(), seed ^ stableHash(spec.name()), spec.balancing());
      }
      s.maxWaiting = spec.maxWaiting();
      s.maxActive = spec.maxActive();
      List<Endpoint> members = new ArrayList<>(spec.memberIds().size());
      for (String id : spec.memberIds()) {
        Endpoint e = endpoints.get(id);
        if (e != null) {
          members.add(e);
          servicesOf.computeIfAbsent(e, k -> new ArrayList<>(2)).add(s);
        }
      }
      s.members = List.copyOf(members);
      s.strategy.reset(s.members);
      next.put(spec.name(), s);
    }
    for (ServiceSlots old : services.values()) {
      if (next.get(old.name()) != old) {
        old.removed = true;
        old.members = List.of();
      }
    }
    services.clear();
    services.putAll(next);
    dispatch(new ArrayList<>(services.values()), nowNanos);
  }

  /** The live service of that name, or {@code null}. */
  public synchronized ServiceSlots service(String name) {
    return services.get(name);
  }

  /**
   * Takes a slot for {@code waiter} on a backend the service's strategy picks, or queues it.
   *
   * @return {@link Admission#GRANTED} (see {@link Waiter#endpoint()}), {@link Admission#QUEUED}
   *     (the waiter is later {@link Waiter#granted granted} unless {@link #cancel cancelled}), or a
   *     rejection
   */
  public synchronized Admission acquire(ServiceSlots service, Waiter waiter, long nowNanos) {
    waiter.service = service;
    if (service.removed) {
      return Admission.NO_BACKEND;
    }
    if (service.belowCap() && service.head() == null) {
      Endpoint e = service.strategy.pick(service.members, nowNanos);
      if (e != null) {
        take(service, waiter, e);
        return Admission.GRANTED;
      }
    }
    if (!service.anyAvailable()) {
      return Admission.NO_BACKEND;
    }
    if (service.waiting >= service.maxWaiting) {
      return Admission.QUEUE_FULL;
    }
    waiter.state = Waiter.State.WAITING;
    waiter.seq = nextSeq++;
    waiter.enqueuedNanos = nowNanos;
    service.waiters.addLast(waiter);
    service.waiting++;
    return Admission.QUEUED;
  }

  /**
   * Takes a slot at once on any member but {@code excluded}, for a retry after a failed connect;
   * never queues.
   *
   * @return {@link Admission#GRANTED} or {@link Admission#NO_BACKEND}
   */
  public synchronized Admission acquireExcept(ServiceSlots service, Waiter waiter, long nowNanos, Endpoint excluded) {
    waiter.service = service;
    if (service.removed || !service.belowCap()) {
      return Admission.NO_BACKEND;
    }
    boolean wasAvailable = excluded.available();
    excluded.setAvailable(false);
    try {
      Endpoint e = service.strategy.pick(service.members, nowNanos);
      if (e == null) {
        return Admission.NO_BACKEND;
      }
      take(service, waiter, e);
      return Admission.GRANTED;
    } finally {
      excluded.setAvailable(wasAvailable);
    }
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
    waiter.service.waiting--;
    return true;
  }

  /**
   * Gives back the slot a waiter holds and hands it to the oldest waiter that can use it.
   * Releasing twice, or releasing a waiter that holds no slot, does nothing.
   *
   * @return {@code true} if a slot was released
   */
  public synchronized boolean release(Waiter waiter, long nowNanos, long latencyNanos, boolean failed) {
    if (waiter.state != Waiter.State.GRANTED) {
      return false;
    }
    waiter.state = Waiter.State.RELEASED;
    Endpoint e = waiter.endpoint;
    ServiceSlots s = waiter.service;
    e.setActive(e.active() - 1);
    s.active--;
    s.strategy.onComplete(e, latencyNanos, failed, nowNanos);
    List<ServiceSlots> sharing = servicesOf.getOrDefault(e, List.of());
    boolean anyWaiting = s.waiting > 0;
    for (ServiceSlots x : sharing) {
      x.strategy.onSlotFreed(e);
      anyWaiting |= x.waiting > 0;
    }
    if (anyWaiting) {
      List<ServiceSlots> candidates = new ArrayList<>(sharing);
      if (!sharing.contains(s)) {
        candidates.add(s);
      }
      dispatch(candidates, nowNanos);
    }
    return true;
  }

  /** Active and capacity per backend, waiting per service, read atomically. */
  public synchronized TableView view() {
    Map<String, TableView.EndpointCounts> ep = new LinkedHashMap<>();
    for (Endpoint e : endpoints.values()) {
      ep.put(e.id(), new TableView.EndpointCounts(e.active(), e.capacity()));
    }
    Map<String, TableView.ServiceCounts> sv = new LinkedHashMap<>();
    for (ServiceSlots s : services.values()) {
      sv.put(s.name(), new TableView.ServiceCounts(s.active, s.waiting));
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
      s.strategy.reset(s.members);
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

  /** FNV-1a of the name: unlike {@code String.hashCode}'s use, fixed by this code for all JVMs. */
  private static long stableHash(String s) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < s.length(); i++) {
      h = (h ^ s.charAt(i)) * 0x100000001b3L;
    }
    return h;
  }

  /** Active and capacity of one backend, or {@code null} if unknown. */
  public synchronized TableView.EndpointCounts endpointCounts(String id) {
    Endpoint e = endpoints.get(id);
    return e == null ? null : new TableView.EndpointCounts(e.active(), e.capacity());
  }

  /** Active and waiting of one service, or {@code null} if unknown. */
  public synchronized TableView.ServiceCounts serviceCounts(String name) {
    ServiceSlots s = services.get(name);
    return s == null ? null : new TableView.ServiceCounts(s.active, s.waiting);
  }

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
      Endpoint e = best.strategy.pick(best.members, nowNanos);
      if (e == null) {
        candidates.remove(best);
        continue;
      }
      best.waiters.pollFirst();
      best.waiting--;
      take(best, oldest, e);
      oldest.granted(e);
    }
  }

  private static void take(ServiceSlots s, Waiter w, Endpoint e) {
    w.state = Waiter.State.GRANTED;
    w.endpoint = e;
    e.setActive(e.active() + 1);
    s.active++;
  }
}
