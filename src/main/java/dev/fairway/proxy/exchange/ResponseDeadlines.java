package dev.fairway.proxy.exchange;

/**
 * The exchanges of one proxy verticle that wait for response headers (or, once the response
 * began, for a slow client to drain), swept by one periodic
 * timer instead of one timer per request. Event-loop confined.
 *
 * <p>Example: an exchange armed at t=0 with {@code responseMs} 300 is timed out by the first
 * sweep at or after t=300 ms, so within one sweep period (25 ms) of its deadline; one whose
 * headers arrive first is unlinked in O(1) and never looked at again.
 */
public final class ResponseDeadlines {
  /** Sweep period: the most a response timeout fires late. */
  public static final long SWEEP_MS = 25;

  private Exchange first;
  private Exchange last;

  /** Starts the wait for response headers of {@code e}, due at {@code deadlineNanos}. */
  void arm(Exchange e, long deadlineNanos) {
    e.deadlineNanos = deadlineNanos;
    e.armed = true;
    e.prevArmed = last;
    e.nextArmed = null;
    if (last == null) {
      first = e;
    } else {
      last.nextArmed = e;
    }
    last = e;
  }

  /** Whether {@code e} waits for a deadline now. */
  boolean armed(Exchange e) {
    return e.armed;
  }

  /** Stops the wait (headers arrived, or the exchange ended otherwise). */
  void disarm(Exchange e) {
    if (!e.armed) {
      return;
    }
    e.armed = false;
    if (e.prevArmed == null) {
      first = e.nextArmed;
    } else {
      e.prevArmed.nextArmed = e.nextArmed;
    }
    if (e.nextArmed == null) {
      last = e.prevArmed;
    } else {
      e.nextArmed.prevArmed = e.prevArmed;
    }
    e.prevArmed = null;
    e.nextArmed = null;
  }

  /** Times out every armed exchange whose deadline has passed. */
  public void sweep(long nowNanos) {
    Exchange e = first;
    while (e != null) {
      Exchange next = e.nextArmed;
      if (nowNanos - e.deadlineNanos >= 0) {
        disarm(e);
        e.onResponseTimeout();
      }
      e = next;
    }
  }
}
