package dev.fairway.proxy.exchange;

import dev.fairway.config.RetrySettings;
import dev.fairway.config.ServiceOverload;
import dev.fairway.config.ThrottleSettings;
import dev.fairway.overload.AdaptiveThrottle;
import dev.fairway.overload.Criticality;
import dev.fairway.overload.RetryBudget;
import dev.fairway.overload.ServiceTime;
import java.util.concurrent.TimeUnit;

/**
 * One service's overload state on one event loop: its adaptive throttle and its retry budget.
 * Each event loop keeps its own (as each client task does in the SRE book), so nothing here is
 * shared or locked; what metrics read of it is the last count seen.
 *
 * <p>Example: with {@code throttle.k} 2, after 100 requests of which 30 were accepted,
 * {@link #admit} refuses a new request with probability (100 - 60) / 101, sheddable ones first;
 * with {@code retry.budgetPercent} 10, {@link #mayRetry} allows about one retry per ten requests.
 */
final class ServiceGuard {
  /** The retry budget's window. */
  static final long BUDGET_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** Its service's policy: replaced by an equal one after a reload ({@link OverloadLane#guard}). */
  volatile ServiceOverload policy;
  private final AdaptiveThrottle throttle;
  private final RetryBudget budget;
  /** A low quantile of the backends' time to answer: a deadline shorter than it is not worth a backend's slot. */
  private final ServiceTime serviceTime;
  /** What the throttle counted last: read by metrics from other threads, never exact. */
  private volatile long requests;
  private volatile double probability;
  private volatile long accepts;

  /**
   * @param lanes       how many event loops share {@code minRetriesPerSecond}
   * @param serviceTime the service's answer times, shared by the event loops (more samples, so it
   *                    follows a change sooner)
   */
  ServiceGuard(ServiceOverload policy, int lanes, ServiceTime serviceTime) {
    this.policy = policy;
    this.serviceTime = serviceTime;
    ThrottleSettings t = policy.throttle();
    this.throttle = t.enabled() ? new AdaptiveThrottle(t.k(), TimeUnit.MILLISECONDS.toNanos(t.windowMs()), t.minRequests()) : null;
    RetrySettings r = policy.retry();
    this.budget = new RetryBudget(r.budgetPercent(), r.minRetriesPerSecond() / Math.max(1, lanes), BUDGET_WINDOW_NANOS);
  }

  /**
   * A new request of class {@code c}: whether the throttle lets it on ({@code random01} in
   * [0, 1)). A refused request is counted now; one let on when its answer comes ({@link #answered}).
   */
  boolean admit(Criticality c, long nowNanos, double random01) {
    budget.request(nowNanos);
    if (throttle == null || throttle.decide(c, nowNanos, random01)) {
      return true;
    }
    throttle.count(c, nowNanos, false);
    note(nowNanos);
    return false;
  }

  /** A request let on by {@link #admit} got its answer: {@code accepted} if it was not an overload signal. */
  void answered(Criticality c, long nowNanos, boolean accepted) {
    if (throttle != null) {
      throttle.count(c, nowNanos, true);
      if (accepted) {
        throttle.accepted(nowNanos);
      }
      note(nowNanos);
    }
  }

  /** A backend answered (not with a 5xx) {@code nanos} after the slot was granted. */
  void served(long nanos) {
    serviceTime.sample(nanos);
  }

  /** How long the backends usually take at least (their answers' 25th percentile); 0 before ten answers. */
  long usualNanos() {
    return serviceTime.nanos();
  }

  /** Whether a retry that may add load to a backend fits the budget; if so, it is spent. */
  boolean mayRetry(long nowNanos) {
    return budget.tryRetry(nowNanos);
  }

  private void note(long nowNanos) {
    requests = throttle.requests(nowNanos);
    accepts = throttle.accepts(nowNanos);
    probability = throttle.rejectProbability(nowNanos);
  }

  double probability() {
    return probability;
  }

  long requests() {
    return requests;
  }

  long accepts() {
    return accepts;
  }
}
