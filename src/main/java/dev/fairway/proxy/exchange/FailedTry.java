package dev.fairway.proxy.exchange;

import dev.fairway.config.RetrySettings.RetryOn;
import dev.fairway.proxy.exchange.ExchangeRecord.Ending;
import dev.fairway.proxy.upstream.Upstream;
import dev.fairway.proxy.wire.Failure;

/**
 * What an exchange does when a try fails before its response began: its connection was lost, its
 * response deadline passed, or the backend answered with a status the service retries. The try's slot goes back with what the
 * backend did; the request goes to another backend if the service's {@code retry} settings and
 * budget allow ({@link SlotHolder#mayRetry}), else the client hears of the failure.
 *
 * <p>Example: with {@code retry.on ["503"]}, b1's {@code 503} to a {@code GET} releases b1's slot
 * as a failure, takes a free slot of b2, closes b1's connection and sends the request to b2
 * ({@code X-Fairway-Attempt: 2}); had every other backend been full, b1's 503 would have gone to
 * the client as it came.
 */
final class FailedTry {
  private FailedTry() {
  }

  /**
   * The connection was lost before the tunnel or the response's end.
   *
   * @param responding    the response had begun: the client's stream is cut
   * @param deadlineArmed the response timeout that fired (if one did) was the request's deadline
   */
  static void lost(Exchange x, Upstream u, boolean responding, boolean deadlineArmed, long now) {
    BackendSide backend = x.backend;
    if (responding) {
      x.abort(Ending.FAILED);
    } else if (backend.retryable(u)) {
      x.release(Ending.ABORTED, now);
      x.retryElsewhere(Failure.BAD_RESPONSE, u.multiplexed() ? RetryOn.REFUSED_STREAM : RetryOn.CONNECT_FAILURE);
    } else if (backend.timedOut() && deadlineArmed) {
      x.release(Ending.ABORTED, now); // the client's deadline, not the backend's fault: no failure counted
      x.fail(Failure.DEADLINE_EXCEEDED);
    } else {
      x.release(Ending.FAILED, now);
      x.record.connectFailure = u.cause();
      Failure f = backend.timedOut() ? Failure.RESPONSE_TIMEOUT
          : x.requestRelay.stalled() ? Failure.UPLOAD_STALLED : Failure.ofLostConnection(u.cause());
      RetryOn why = RetryRules.afterLoss(backend.timedOut(), x.requestRelay.stalled(), x.responseRelay.informational(),
          x.requestRelay.replayable());
      if (why != null && !x.clientGone) {
        x.retryElsewhere(f, why);
      } else {
        x.fail(f);
      }
    }
  }

  /**
   * A deadline of {@link ResponseDeadlines} passed: before the response head, no response headers
   * within {@code responseMs} (give up on the backend: 504); after it, the client held the response
   * back for {@code slowClientMs}. When it is the request's own deadline and the backend is an
   * HTTP/1.1 connection, the client gets its 504 but the backend keeps the slot until it answers
   * (or {@code responseMs} ends): closing the connection does not stop its work, and a new request
   * in that slot would find it still busy. An HTTP/2 stream is reset, which gRPC servers act on.
   *
   * @param responding    the response had begun
   * @param deadlineArmed the deadline that passed is the request's own, not {@code responseMs}
   */
  static void timedOut(Exchange x, boolean responding, boolean deadlineArmed) {
    BackendSide backend = x.backend;
    if (backend.orphaned()) {
      backend.drop();
      x.release(Ending.ABORTED, System.nanoTime());
    } else if (responding) {
      x.giveSlotBackEarly();
    } else if (!x.over() && deadlineArmed && !x.upstream().multiplexed()) {
      backend.orphan();
      x.fail(Failure.DEADLINE_EXCEEDED);
      x.ctx.deadlines().arm(x, x.record.slotNanos + x.route.timeouts().responseMs() * 1_000_000L);
    } else if (!x.over()) {
      backend.timeOut();
    }
  }

  /**
   * The backend answered {@code code}: if {@code retry.on} names it and a retry may go now
   * ({@link SlotHolder#retryNowElsewhere}), the answer is dropped with its connection and the
   * request goes to the newly granted backend, its kept body sent again.
   *
   * @return whether the answer was dropped for a retry
   */
  static boolean answered(Exchange x, int code, boolean retryAfter) {
    RetryOn why = RetryRules.onStatus(x.route.overload().retry(), code);
    if (why == null || !x.requestRelay.replayable() || x.clientGone) {
      return false;
    }
    long now = System.nanoTime();
    x.record.backendStatus = code;
    x.record.backendRetryAfter = retryAfter; // a 503 with Retry-After is overload, not a broken backend
    x.record.attemptEnded(code, now, 0);
    x.release(Ending.FAILED, now);
    if (!x.retryNowElsewhere(why, now)) {
      return false; // the answer goes on to the client; its slot went back already
    }
    x.dropUpstream();
    x.rewindRequest();
    x.record.backendStatus = 0;
    x.connect(x.endpoint(), true, now);
    return true;
  }
}
