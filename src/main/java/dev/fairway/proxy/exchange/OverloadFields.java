package dev.fairway.proxy.exchange;

import dev.fairway.proxy.wire.ClientRequest;
import java.util.concurrent.TimeUnit;

/**
 * The fields each try carries to its backend so that the backend can propagate them: the attempt
 * number, the request's criticality, and what is left of its deadline.
 *
 * <p>Example: a request that came with {@code X-Request-Timeout-Ms: 250}, no criticality, and
 * waited 40 ms for a slot is forwarded with {@code x-fairway-attempt: 1},
 * {@code x-criticality: critical} (the service's default) and {@code x-request-timeout-ms: 210};
 * its retry 30 ms later carries {@code x-fairway-attempt: 2} and {@code x-request-timeout-ms: 180}.
 * A gRPC call gets {@code grpc-timeout} instead, unless it also came with the milliseconds field.
 */
final class OverloadFields {
  private static final String GRPC_TIMEOUT = "grpc-timeout";

  private OverloadFields() {
  }

  /** Sets the fields of the exchange's next try on its request (before the backend's head is made). */
  static void forward(Exchange x, long nowNanos) {
    ClientRequest req = x.request;
    OverloadLane lane = x.ctx.overload();
    req.forwardField(OverloadLane.ATTEMPT_FIELD, x.attempts == 1 ? "1" : Integer.toString(x.attempts));
    if (!x.criticalityNamed) {
      req.forwardField(lane.criticalityField, x.criticality().wireName());
    }
    if (!x.deadline.bounded()) {
      return;
    }
    if (x.grpc || req.grpcTimeout() != null) {
      req.forwardField(GRPC_TIMEOUT, x.deadline.grpcTimeout(nowNanos));
    }
    if (x.forwardDeadlineMs) {
      long ms = TimeUnit.NANOSECONDS.toMillis(x.deadline.remainingNanos(nowNanos));
      req.forwardField(lane.deadlineField, Long.toString(ms));
    }
  }
}
