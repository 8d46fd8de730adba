package dev.fairway.proxy.exchange;

import dev.fairway.overload.Criticality;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.route.Deadline;
import java.util.concurrent.TimeUnit;

/**
 * What a request is before it asks for a slot: its criticality (from the criticality field, else
 * the service's default), its deadline (the earliest of {@code grpc-timeout}, the deadline field
 * and the service's {@code timeouts.totalMs}), and whether the service's adaptive throttle lets it
 * on.
 *
 * <p>Example: {@code X-Criticality: SHEDDABLE} and {@code X-Request-Timeout-Ms: 250} on a service
 * with {@code totalMs} 1000 make a sheddable request due 250 ms after it arrived; with
 * {@code X-Request-Timeout-Ms: 0} it is answered 504 at once and never forwarded; with
 * {@code X-Request-Timeout-Ms: soon} it is answered 400.
 */
final class Intake {
  /** More digits than this are no deadline worth keeping (over 3 years in milliseconds). */
  private static final int MAX_MS_DIGITS = 11;

  private Intake() {
  }

  /** Sets the exchange's criticality, deadline and guard; returns why it cannot go on, or {@code null}. */
  static Failure admit(Exchange x, long nowNanos) {
    OverloadLane lane = x.ctx.overload();
    Criticality named = Criticality.parse(x.request.field(lane.criticalityField));
    x.criticality(named != null ? named : x.route.overload().defaultCriticality());
    x.criticalityNamed = named != null;
    long start = x.record.startNanos;
    Deadline d = Deadline.of(start, x.request.grpcTimeout());
    if (d == null) {
      return Failure.MALFORMED_TIMEOUT;
    }
    String field = x.request.field(lane.deadlineField);
    if (field != null) {
      long ms = millis(field);
      if (ms < 0) {
        return Failure.MALFORMED_DEADLINE;
      }
      d = d.earlier(Deadline.after(start, TimeUnit.MILLISECONDS.toNanos(ms)));
    }
    long totalMs = x.route.timeouts().totalMs();
    if (totalMs > 0) {
      d = d.earlier(Deadline.after(start, TimeUnit.MILLISECONDS.toNanos(totalMs)));
    }
    x.deadline = d;
    x.forwardDeadlineMs = field != null || totalMs > 0 && !x.grpc; // a gRPC call's is in grpc-timeout
    if (d.passed(nowNanos)) {
      return Failure.DEADLINE_EXCEEDED;
    }
    ServiceGuard guard = lane.guard(x.route);
    if (!guard.admit(x.criticality(), nowNanos, lane.coin())) {
      x.meters.throttled().increment();
      return Failure.THROTTLED;
    }
    x.guard = guard; // hears the answer when the exchange finishes
    return null;
  }

  /** A milliseconds field's value: 1 to 11 digits, spaces around allowed; -1 if it is anything else. */
  static long millis(String value) {
    String v = value.trim();
    if (v.isEmpty() || v.length() > MAX_MS_DIGITS) {
      return -1;
    }
    long ms = 0;
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      ms = ms * 10 + (c - '0');
    }
    return ms;
  }
}
