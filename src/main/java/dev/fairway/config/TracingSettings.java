package dev.fairway.config;

/**
 * Request tracing (the top-level {@code tracing} object): W3C trace context propagation and one
 * OpenTelemetry span per request, exported over OTLP/HTTP. Off unless {@code endpoint} is set.
 *
 * <p>Example: {@code {"endpoint": "http://127.0.0.1:4318/v1/traces", "sampleRatio": 0.1}} samples
 * one new trace in ten (a request whose {@code traceparent} says sampled is always sampled) and
 * sends the spans as {@code service.name} {@code fairway}, in batches of up to 512 every 1000 ms.
 *
 * @param endpoint        the OTLP/HTTP traces URL, or {@code null}: tracing is off
 * @param serviceName     the {@code service.name} of the spans
 * @param sampleRatio     the share of new traces sampled, 0 to 1 (parent-based: a client's sampled
 *                        flag wins)
 * @param exportTimeoutMs how long one export may take before it is given up
 * @param maxQueueSize    ended spans waiting for export; beyond it new ones are dropped
 * @param maxBatchSize    spans sent in one export
 * @param scheduleDelayMs how long a span may wait before its batch goes
 */
public record TracingSettings(String endpoint, String serviceName, double sampleRatio, long exportTimeoutMs,
                              int maxQueueSize, int maxBatchSize, long scheduleDelayMs) {
  /** Tracing off, with the defaults of the other keys. */
  public static final TracingSettings OFF = new TracingSettings(null, "fairway", 1.0, 10_000, 2048, 512, 1000);

  /** Whether spans are made and exported. */
  public boolean on() {
    return endpoint != null;
  }
}
