package dev.fairway.proxy.exchange;

import dev.fairway.balancer.Endpoint;
import dev.fairway.config.RetrySettings;
import dev.fairway.config.RetrySettings.RetryOn;
import dev.fairway.metrics.ServiceMeters;
import dev.fairway.proxy.exchange.ExchangeRecord.Ending;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.route.Deadline;
import dev.fairway.route.Route;
import dev.fairway.slots.Admission;
import dev.fairway.slots.Waiter;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * An exchange's dealings with the slot table: ask for a slot, wait for one up to
 * {@code waitTimeoutMs}, take the grant on the exchange's own event loop, retry once elsewhere,
 * and give the slot back exactly once with what the backend did. What to do with a slot, or
 * without one, is the {@link Exchange}'s.
 *
 * <p>Example: all of a service's backends are full: {@link #acquire} queues the request and arms
 * its wait timer; b2 frees a slot on another event loop, whose {@link #granted} call hands the
 * grant to this exchange's loop, cancels the timer and calls {@link #connect}; had the timer fired
 * first, the table would have cancelled the wait and the exchange answered 503. A request with a
 * {@link Deadline} 100 ms away waits at most 100 ms, then answers 504 (DEADLINE_EXCEEDED).
 */
abstract class SlotHolder extends Waiter {
  final ExchangeContext ctx;
  final Route route;
  final ServiceMeters meters;
  final ExchangeRecord record;
  private ScheduledFuture<?> waitTimer;
  /** Tries so far, this one included: 1 until the first retry. */
  int attempts = 1;
  /** What a retry that finds no slot in time answers (the failure that caused it). */
  private Failure retryFailure;
  /** When the request must be done: waits end by then, and a grant after it is not used. */
  Deadline deadline = Deadline.NONE;
  /** The service's throttle and retry budget on this event loop; set when the request is admitted. */
  ServiceGuard guard;
  /** The slot went back before the response ended: its client held the response back ({@link #giveSlotBackEarly}). */
  private boolean slotGivenBack;

  SlotHolder(ExchangeContext ctx, Route route, ExchangeRecord record) {
    this.ctx = ctx;
    this.route = route;
    this.meters = ctx.metrics().service(route.service());
    this.record = record;
  }

  /** The event loop of the client's connection, where the exchange runs. */
  abstract EventLoop loop();

  /** Connects to {@code e}, whose slot this holds ({@code fresh}: on a new connection, never a pooled one). */
  abstract void connect(Endpoint e, boolean fresh, long nowNanos);

  /** Answers the client with Fairway's own status for {@code f}. */
  abstract void fail(Failure f);

  /** Whether the client is gone: a late grant is given back at once. */
  abstract boolean abandoned();

  /** The request's method (which retries it may have). */
  abstract HttpMethod method();

  /** A retry goes ahead: what was sent of the request goes first to the next backend. */
  abstract void rewindRequest();

  /** Releases the slot and finishes the exchange with {@code status} (0: the connection was cut). */
  abstract void end(Ending outcome, int status, long nowNanos);

  /** Asks the table for a slot: connect at once, wait for one, or fail. */
  final void acquire() {
    switch (ctx.table().acquire(route.slots(), this, record.startNanos, ctx.lane())) {
      case GRANTED -> connect(endpoint(), false, record.startNanos);
      case QUEUED -> awaitSlot();
      case NO_BACKEND -> {
        meters.noBackend().increment();
        fail(Failure.NO_BACKEND);
      }
      case QUEUE_FULL -> {
        meters.queueFull().increment();
        fail(Failure.QUEUE_FULL);
      }
    }
  }

  /**
   * Waits up to its class's {@code waitTimeoutMs}, or until its deadline leaves less than the
   * backends' usual answer time ({@link #unmeetable}) if that comes first.
   */
  private void awaitSlot() {
    long now = System.nanoTime();
    long waitNanos = Math.max(0, Math.min(TimeUnit.MILLISECONDS.toNanos(route.waitTimeoutMs(criticality())),
        deadline.remainingNanos(now) - usualNanos()));
    if (waitNanos == 0) {
      onWaitTimeout();
      return;
    }
    waitTimer = loop().schedule(this::onWaitTimeout, waitNanos, TimeUnit.NANOSECONDS);
  }

  /** The wait is over without a slot: 503 (or the retry's failure), or 504 if the deadline ended it. */
  private void onWaitTimeout() {
    waitTimer = null;
    if (ctx.table().cancel(this)) {
      long now = System.nanoTime();
      meters.slotTimeouts().increment();
      meters.slotWait().record(now - enqueuedNanos(), TimeUnit.NANOSECONDS);
      fail(deadline.passed(now) ? Failure.DEADLINE_EXCEEDED : unmeetable(now) ? Failure.DEADLINE_UNMEETABLE
          : attempts > 1 ? retryFailure : Failure.SLOT_TIMEOUT);
    }
  }

  @Override
  protected final void granted(Endpoint endpoint) {
    loop().execute(() -> {
      long now = waitEnded();
      if (abandoned()) {
        end(Ending.ABORTED, 0, now);
      } else {
        connect(endpoint, attempts > 1, now);
      }
    });
  }

  /** The wait is over, granted or shed: its timer stops and its length is recorded. Returns the time. */
  private long waitEnded() {
    cancelWaitTimer();
    long now = System.nanoTime();
    long waited = now - enqueuedNanos();
    record.waitNanos += waited;
    meters.slotWait().record(waited, TimeUnit.NANOSECONDS);
    return now;
  }

  /**
   * The table refused this waiting request to make room for a more critical one: 503 (gRPC 14)
   * with {@code Retry-After}, on the exchange's own loop.
   */
  @Override
  protected final void shed() {
    loop().execute(() -> {
      long now = waitEnded();
      meters.shed().increment();
      if (abandoned()) {
        end(Ending.ABORTED, 0, now);
      } else {
        fail(Failure.SHED);
      }
    });
  }

  /**
   * Stops waiting for a slot, if the request waits: its timer stops and it leaves the queue.
   *
   * @return whether the wait ended here, before any grant (a grant already on its way to
   *         {@link #granted} sees the exchange abandoned and gives the slot back; so does a
   *         {@link #shed} on its way)
   */
  final boolean cancelWait() {
    return cancelWaitTimer() && ctx.table().cancel(this);
  }

  /** @return whether a wait timer was running */
  private boolean cancelWaitTimer() {
    if (waitTimer == null) {
      return false;
    }
    waitTimer.cancel(false);
    waitTimer = null;
    return true;
  }

  /** How long the service's backends usually take at least to answer; 0 while unknown. */
  private long usualNanos() {
    return guard == null ? 0 : guard.usualNanos();
  }

  /**
   * Whether what is left of the deadline at {@code nowNanos} is less than the backends' usual
   * answer time: the request is then not sent (the book: a request that cannot be answered in
   * time only takes a backend's slot from one that can).
   */
  final boolean unmeetable(long nowNanos) {
    return deadline.bounded() && deadline.remainingNanos(nowNanos) < Math.max(1, usualNanos());
  }

  /**
   * Whether a try that failed for {@code why} may go to another backend: the service's
   * {@code retry.on} names it and tries are left; a request a backend may have acted on (after a
   * reset or a 5xx) also needs a method that {@code retry.methods} lists and room in the retry
   * budget. Requests no backend received (a failed connect, a refused stream) add no load, so the
   * budget does not limit them.
   */
  final boolean mayRetry(RetryOn why, long nowNanos) {
    RetrySettings r = route.overload().retry();
    if (attempts >= r.maxAttempts() || !r.on().contains(why)) {
      return false;
    }
    if (why == RetryOn.CONNECT_FAILURE || why == RetryOn.REFUSED_STREAM) {
      return true;
    }
    if (!r.methods().contains(method().name())) {
      return false;
    }
    if (guard.mayRetry(nowNanos)) {
      return true;
    }
    meters.retryBudgetExhausted().increment();
    return false;
  }

  /**
   * Tries again if {@link #mayRetry} allows, never on the backend that just failed and always on a
   * new connection (a pooled one could be just as stale). If every other backend is full, the retry
   * waits for a slot on one of them for what is left of the wait (less what the request already
   * waited, and never past the deadline); if that is not possible, or the time runs out, the client
   * gets {@code otherwise} (or 504 once the deadline has passed).
   */
  final void retryElsewhere(Failure otherwise, RetryOn why) {
    long now = System.nanoTime();
    if (!mayRetry(why, now)) {
      fail(otherwise);
      return;
    }
    attempts++;
    retryFailure = otherwise;
    rewindRequest();
    if (deadline.passed(now)) {
      fail(Failure.DEADLINE_EXCEEDED);
      return;
    }
    long budgetNanos = deadline.bound(TimeUnit.MILLISECONDS.toNanos(route.waitTimeoutMs(criticality())) - record.waitNanos, now);
    switch (ctx.table().acquireExcept(route.slots(), this, now, endpoint(), budgetNanos > 0)) {
      case GRANTED -> {
        meters.retries().increment();
        connect(endpoint(), true, now);
      }
      case QUEUED -> {
        meters.retries().increment();
        waitTimer = loop().schedule(this::onWaitTimeout, budgetNanos, TimeUnit.NANOSECONDS);
      }
      default -> fail(otherwise);
    }
  }

  /**
   * After a backend's answer the request may go elsewhere ({@link #mayRetry}), but only to a
   * backend with a free slot now: its slot (released already) counts the failure, and the retry
   * takes a slot of another member without waiting. An overload answer while the whole service is
   * full is passed back, not retried (retrying overload amplifies it).
   *
   * @return whether the retry has a slot (the caller drops the answer and connects); if not, the
   *     answer goes to the client
   */
  final boolean retryNowElsewhere(RetryOn why, long nowNanos) {
    if (deadline.passed(nowNanos) || !mayRetry(why, nowNanos)) {
      return false;
    }
    if (ctx.table().acquireExcept(route.slots(), this, nowNanos, endpoint(), false) != Admission.GRANTED) {
      return false;
    }
    attempts++;
    meters.retries().increment();
    return true;
  }

  /**
   * The client held the response back for {@code slowClientMs}: the backend has done its part and
   * its slot goes back to the table (or the next waiter), so clients that read slowly cannot hold
   * every slot of a backend. The response goes on, still read only as fast as the client takes it.
   */
  final void giveSlotBackEarly() {
    if (!slotGivenBack) {
      slotGivenBack = true;
      meters.slowClients().increment();
      release(Ending.OK, System.nanoTime());
    }
  }

  final boolean slotGivenBack() {
    return slotGivenBack;
  }

  /** Gives the slot back (once) with the backend's record. */
  final void release(Ending outcome, long nowNanos) {
    record.release(ctx, this, outcome, nowNanos);
  }
}
