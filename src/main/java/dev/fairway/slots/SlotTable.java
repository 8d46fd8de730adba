package dev.fairway.slots;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.Outcome;
import dev.fairway.balancer.Strategy;
import dev.fairway.balancer.WeightEpoch;
import dev.fairway.config.OutlierSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The process-wide table of capacity slots: per backend the active count and capacity, per
 * service the strategy, the service-wide cap and a {@link WaitQueue} of waiters (seed 000's
 * coordinator, with the SRE book's criticality: more important requests are served first, and
 * shed last when too many wait).
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
  private final Holds holds = new Holds();
  private final Ramps ramps = new Ramps();
  /** Cluster mode's shares of each backend's capacity; {@code null} while capacity is not shared. */
  private Shares shares;
  private boolean applied;
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
    List<Endpoint> returning = EndpointSpec.applyAll(endpointSpecs, endpoints, weightEpoch, applied, holds);
    applied = true;
    if (shares != null) {
      shares.applyTo(endpoints);
    }

    Map<String, ServiceSlots> next = new LinkedHashMap<>();
    Map<Endpoint, List<ServiceSlots>> sharing = new IdentityHashMap<>();
    for (ServiceSpec spec : serviceSpecs) {
      ServiceSlots s = services.get(spec.name());
      if (s == null) {
        s = new ServiceSlots(spec.name(), lanes);
      }
      s.configure(spec, seed, endpoints, sharing);
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
    if (shares != null) {
      shares.noteUse(sharing);
    }
    ramps.start(returning, sharing, nowNanos);
    ramps.retain(endpoints.values());
    Handoff.dispatch(new ArrayList<>(services.values()), nowNanos);
  }

  /**
   * Ends the failure penalties and local holds that are due, and moves slow starts on; call it
   * often (every few tens of milliseconds) from any thread. Cheap when nothing is due.
   */
  public void tick(long nowNanos) {
    if (holds.due(nowNanos) || ramps.active()) {
      tickLocked(nowNanos);
    }
  }

  private synchronized void tickLocked(long nowNanos) {
    List<Endpoint> changed = holds.expire(nowNanos);
    changed.addAll(ramps.advance(nowNanos));
    Handoff.dispatch(membersChanged(changed), nowNanos); // a reset recounts the free slots
  }

  /** Tells the strategies of the services over {@code changed} that availability or capacity moved; returns those services. */
  private List<ServiceSlots> membersChanged(List<Endpoint> changed) {
    List<ServiceSlots> touched = new ArrayList<>();
    for (Endpoint e : changed) {
      for (ServiceSlots x : servicesOf.getOrDefault(e, List.of())) {
        if (!touched.contains(x)) {
          touched.add(x);
          x.shared.reset(x.members);
          x.generation++;
        }
      }
    }
    return touched;
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
   *     (the waiter is later {@link Waiter#granted granted}, unless {@link #cancel cancelled} or
   *     {@link Waiter#shed shed} for a more critical newcomer), or a rejection
   */
  public Admission acquire(ServiceSlots service, Waiter waiter, long nowNanos, int lane) {
    waiter.service = service;
    waiter.lane = lane;
    if (service.removed) {
      return Admission.NO_BACKEND;
    }
    if (service.lockFree && service.waiting == 0) {
      Endpoint e = Handoff.pickAndTake(service, service.local(lane), nowNanos);
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
    Waiter head = service.head();
    if (head == null || head.excluded != null) {
      Endpoint e = head == null ? Handoff.pickAndTake(service, service.shared, nowNanos)
          : Handoff.takeExcluded(service, head.excluded);
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
    return service.enqueue(waiter, nextSeq++, nowNanos);
  }

  /**
   * Takes a slot on any member but {@code excluded}, for a retry after a failed connect; if every
   * other member is full and {@code mayQueue}, queues the waiter, which a slot of {@code excluded}
   * never serves.
   *
   * @return {@link Admission#GRANTED}, {@link Admission#QUEUED} (only if {@code mayQueue}),
   *     {@link Admission#QUEUE_FULL} or {@link Admission#NO_BACKEND} (no other member takes requests)
   */
  public synchronized Admission acquireExcept(ServiceSlots service, Waiter waiter, long nowNanos, Endpoint excluded,
                                              boolean mayQueue) {
    waiter.service = service;
    if (service.removed || !Handoff.anyOtherAvailable(service, excluded)) {
      return Admission.NO_BACKEND;
    }
    service.waiting++; // announced before the last look, as in acquire: no release goes unseen
    Endpoint e = Handoff.takeExcept(service, service.shared, excluded, nowNanos);
    if (e != null || !mayQueue) {
      service.waiting--;
      if (e == null) {
        return Admission.NO_BACKEND;
      }
      waiter.grant(e);
      return Admission.GRANTED;
    }
    Admission a = service.enqueue(waiter, nextSeq++, nowNanos);
    if (a == Admission.QUEUED) {
      waiter.excluded = excluded;
    }
    return a;
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

  /** {@link #release(Waiter, long, long, Outcome)} of a success or a plain 5xx. */
  public boolean release(Waiter waiter, long nowNanos, long latencyNanos, boolean failed) {
    return release(waiter, nowNanos, latencyNanos, failed ? Outcome.SERVER_ERROR : Outcome.SUCCESS);
  }

  /**
   * Gives back the slot a waiter holds and hands it to the first waiter (most critical, then
   * oldest) that can use it; after a fast failure the backend's slot stays taken for the rest of
   * the failure penalty, and a failure streak may hold the backend back. Releasing twice, or a waiter that holds no slot, does
   * nothing. Call it on the waiter's own lane (its event loop).
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
    OutlierSettings o = s.outliers;
    boolean tripped = e.countStreak(outcome, o.consecutive5xx(), o.consecutiveGatewayFailures());
    long penalty = failed ? o.failurePenaltyMs() * 1_000_000L - latencyNanos : 0;
    if (tripped || penalty > 0) {
      failedLocked(waiter, tripped, penalty, nowNanos, latencyNanos);
      return true;
    }
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
    Handoff.dispatch(candidates, nowNanos);
  }

  /**
   * A failed request ends: its slot stays taken for the {@code penalty} (if positive), and a
   * backend whose failure streak {@code tripped} is held back locally for the base ejection time,
   * unless that would hold back more of a subset than the service's {@code maxEjectionPercent}.
   */
  private synchronized void failedLocked(Waiter waiter, boolean tripped, long penalty, long nowNanos, long latencyNanos) {
    Endpoint e = waiter.endpoint;
    ServiceSlots s = waiter.service;
    List<ServiceSlots> sharing = servicesOf.getOrDefault(e, List.of());
    if (tripped && !e.held() && Holds.mayHold(e, sharing, s.outliers.maxEjectionPercent())) {
      OutlierSettings o = s.outliers;
      holds.hold(e, nowNanos + o.baseEjectionMs() * 1_000_000L, o.baseEjectionMs(), "service " + s.name() + ": "
          + o.consecutive5xx() + " 5xx or " + o.consecutiveGatewayFailures() + " gateway failures in a row");
      e.clearStreaks();
      membersChanged(List.of(e));
    }
    if (s.lockFree) {
      s.local(waiter.lane).onComplete(e, latencyNanos, waiter.inFlight, true, nowNanos);
    }
    s.releaseServiceSlot();
    if (penalty > 0) {
      holds.penalize(e, nowNanos + penalty); // the backend's slot stays taken until then
      sharing = List.of();
    } else {
      e.release();
    }
    releaseLocked(e, s, sharing, nowNanos, latencyNanos, waiter.inFlight, true);
  }

  /** Active and capacity per backend, waiting per service. */
  public synchronized TableView view() {
    Map<String, TableView.EndpointCounts> ep = new LinkedHashMap<>();
    for (Endpoint e : endpoints.values()) {
      ep.put(e.id(), new TableView.EndpointCounts(e.active(), e.capacity(), e.held(), e.holdsStarted()));
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
    membersChanged(List.of(e));
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

  /**
   * From now on each backend's capacity is the whole cluster's and this process uses only the
   * share {@link #setShares} gives it (0 until then); without this call nothing changes.
   */
  public synchronized void shareCapacity() {
    if (shares == null) {
      shares = new Shares();
      shares.applyTo(endpoints);
    }
  }

  /**
   * Calls {@code r} whenever the backends the services use change (a new subset, a replacement),
   * so that their shares are renewed at once; it runs under the table's lock and must only hand
   * the work off. Needs {@link #shareCapacity}.
   */
  public synchronized void whenUseChanges(Runnable r) {
    shares.onUseChanged(r);
  }

  /**
   * Sets the shares (by backend id; a backend not named gets 0) that limit each backend here, with
   * its capacity and slow start; a raised share serves waiters at once. Needs {@link #shareCapacity}.
   */
  public synchronized void setShares(Map<String, Integer> next, long nowNanos) {
    if (shares == null) {
      throw new IllegalStateException("capacity is not shared: call shareCapacity() first");
    }
    Handoff.dispatch(membersChanged(shares.set(next, endpoints)), nowNanos);
  }

  /** Each backend's share here, or {@code null} while capacity is not shared. */
  public synchronized Map<String, Integer> shares() {
    return shares == null ? null : Shares.of(endpoints);
  }

  /** Per backend some service here uses: requests in flight plus the waiters of its services, spread over their members. */
  public synchronized Map<String, Integer> demand() {
    return Shares.demand(endpoints, servicesOf);
  }

  /** Active and capacity of one backend, or {@code null} if unknown. */
  public synchronized TableView.EndpointCounts endpointCounts(String id) {
    Endpoint e = endpoints.get(id);
    return e == null ? null : new TableView.EndpointCounts(e.active(), e.capacity(), e.held(), e.holdsStarted());
  }

  /** Active and waiting of one service, or {@code null} if unknown. */
  public synchronized TableView.ServiceCounts serviceCounts(String name) {
    ServiceSlots s = services.get(name);
    return s == null ? null : new TableView.ServiceCounts(s.active.get(), s.waiting);
  }
}
