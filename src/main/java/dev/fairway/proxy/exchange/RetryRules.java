package dev.fairway.proxy.exchange;

import dev.fairway.config.RetrySettings;
import dev.fairway.config.RetrySettings.RetryOn;
import io.netty.handler.codec.http.HttpMethod;

/**
 * Which failed tries a service's {@code retry} settings send elsewhere, and which answers count
 * as accepted for adaptive throttling. The decisions about when the budget allows a retry are
 * the {@link SlotHolder}'s.
 *
 * <p>Example: with {@code "on": ["503", "reset"]} and the default methods, a {@code GET} answered
 * 503 is {@code onStatus(..., 503)} = {@code STATUS_503}; a {@code POST}'s body is not kept
 * ({@code keepsBody} false), so it is never sent twice; a connection that closed before any answer
 * after the request went out is {@code RESET}. {@code accepted(503, -1)} is false,
 * {@code accepted(200, 14)} (gRPC UNAVAILABLE) too.
 */
final class RetryRules {
  private RetryRules() {
  }

  /** Whether the request's body is kept while it is sent, to be sent again after a reset or a 5xx. */
  static boolean keepsBody(RetrySettings r, HttpMethod m) {
    if (r.maxAttempts() < 2 || !r.methods().contains(m.name())) {
      return false;
    }
    return r.on().contains(RetryOn.RESET) || r.on().contains(RetryOn.STATUS_502) || r.on().contains(RetryOn.STATUS_503)
        || r.on().contains(RetryOn.STATUS_504);
  }

  /** The reason to retry a backend's answer with {@code status}, or {@code null} if it is passed on. */
  static RetryOn onStatus(RetrySettings r, int status) {
    if (!r.onStatus(status)) {
      return null;
    }
    return status == 502 ? RetryOn.STATUS_502 : status == 503 ? RetryOn.STATUS_503 : RetryOn.STATUS_504;
  }

  /**
   * The reason to retry a try whose connection was lost before the response head, when it was not
   * a stale connection or an unprocessed stream: {@code STATUS_504} if Fairway gave up waiting for
   * the head (the try's timeout), {@code RESET} otherwise; {@code null} if it cannot be sent again
   * (an upload the backend stopped reading, an interim head seen, the body not kept).
   */
  static RetryOn afterLoss(boolean timedOut, boolean stalled, boolean interimSeen, boolean replayable) {
    if (stalled || interimSeen || !replayable) {
      return null;
    }
    return timedOut ? RetryOn.STATUS_504 : RetryOn.RESET;
  }

  /**
   * Whether a request's final answer is an accept for adaptive throttling: anything but an overload
   * signal (503, 429, {@code grpc-status} 8 RESOURCE_EXHAUSTED or 14 UNAVAILABLE), whether the
   * backend or Fairway gave it.
   */
  static boolean accepted(int status, int grpcStatus) {
    return status != 503 && status != 429 && grpcStatus != 8 && grpcStatus != 14;
  }
}
