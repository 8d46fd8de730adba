package dev.fairway.tracing;

/**
 * The span of one request, ended once when the exchange is over.
 *
 * <p>Example: {@code end("b1", 2_000_000, 2, 200, null)} records backend {@code b1}, 2 ms of slot
 * wait, 2 attempts and status 200; {@code end(null, 0, 1, 503, "no backend available")} records
 * Fairway's own answer, with its reason and an error status.
 */
public interface TraceSpan {
  /** No span (tracing off, or not sampled and so not recorded). */
  TraceSpan NONE = (backend, slotWaitNanos, attempts, status, reason) -> { };

  /**
   * Ends the span.
   *
   * @param backend       the id of the backend last tried, or {@code null}
   * @param slotWaitNanos time spent waiting for slots
   * @param attempts      tries made (1 without retries)
   * @param status        the status the client got; 0 when its connection was cut
   * @param reason        why Fairway answered itself, or {@code null}
   */
  void end(String backend, long slotWaitNanos, int attempts, int status, String reason);
}
