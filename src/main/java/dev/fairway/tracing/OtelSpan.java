package dev.fairway.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;

/**
 * A request's OpenTelemetry span: what is known at the end goes in as attributes.
 *
 * <p>Example: {@code end("b1", 1_500_000, 1, 200, null)} sets {@code fairway.backend=b1},
 * {@code fairway.slot_wait_ms=1.5}, {@code fairway.attempts=1},
 * {@code http.response.status_code=200} and ends the span; a 5xx or a {@code reason} also marks
 * the span as an error ({@code fairway.error} and the status description say why).
 */
final class OtelSpan implements TraceSpan {
  static final AttributeKey<String> BACKEND = AttributeKey.stringKey("fairway.backend");
  static final AttributeKey<Double> SLOT_WAIT_MS = AttributeKey.doubleKey("fairway.slot_wait_ms");
  static final AttributeKey<Long> ATTEMPTS = AttributeKey.longKey("fairway.attempts");
  static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
  static final AttributeKey<String> ERROR = AttributeKey.stringKey("fairway.error");

  private final Span span;

  OtelSpan(Span span) {
    this.span = span;
  }

  @Override
  public void end(String backend, long slotWaitNanos, int attempts, int status, String reason) {
    if (backend != null) {
      span.setAttribute(BACKEND, backend);
    }
    span.setAttribute(SLOT_WAIT_MS, slotWaitNanos / 1e6);
    span.setAttribute(ATTEMPTS, (long) attempts);
    if (status > 0) {
      span.setAttribute(STATUS, (long) status);
    }
    if (reason != null) {
      span.setAttribute(ERROR, reason);
      span.setStatus(StatusCode.ERROR, reason);
    } else if (status >= 500 || status == 0) {
      span.setStatus(StatusCode.ERROR, status == 0 ? "connection cut" : "status " + status);
    }
    span.end();
  }
}
