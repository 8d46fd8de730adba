package dev.fairway.tracing;

import dev.fairway.proxy.wire.ClientRequest;

/**
 * What the request path asks of tracing: a span per request, started when the exchange is made.
 * With tracing off it is {@link #OFF}, which reads nothing and returns {@link TraceSpan#NONE}, so
 * the client's {@code traceparent} and {@code tracestate} go on as any other field.
 *
 * <p>Example: with tracing on, a request carrying
 * {@code traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01} to service
 * {@code api} starts the span {@code fairway api} in trace {@code 4bf9…4736}, child of
 * {@code 00f0…02b7}, and the backend's head carries {@code traceparent} with that trace and the new
 * span's id as parent ({@link OtelTracer}).
 */
public interface Tracer {
  /** Tracing off: no span, no parsing, the fields untouched. */
  Tracer OFF = (request, service, requestId) -> TraceSpan.NONE;

  /**
   * Starts the span of {@code request}, routed to {@code service} ({@code null}: to none, Fairway
   * answers it), and sets the {@code traceparent} (and {@code tracestate}) the backend gets.
   */
  TraceSpan start(ClientRequest request, String service, String requestId);
}
