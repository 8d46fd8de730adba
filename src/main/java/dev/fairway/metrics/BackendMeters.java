package dev.fairway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * Per-backend request meters, recorded by the proxy when a request to the backend ends.
 *
 * <p>Example: a 2 ms 200 from b1 increments
 * {@code fairway_backend_requests_total{backend="b1",class="2xx"}} and records 0.002 s in
 * {@code fairway_backend_latency_seconds{backend="b1"}}; a refused connect counts under
 * {@code class="error"}.
 *
 * @param latency  time from taking the slot to the backend's last byte
 * @param byClass  counters for 1xx, 2xx, 3xx, 4xx, 5xx and errors (no status), in that order
 */
public record BackendMeters(Timer latency, Counter[] byClass) {
  /** The status classes, as the {@code class} label reads. */
  static final String[] CLASSES = {"1xx", "2xx", "3xx", "4xx", "5xx", "error"};

  /** Records one request: {@code status} 0 means it ended without a response (an error). */
  public void record(int status, long latencyNanos) {
    int c = status >= 100 && status < 600 ? status / 100 - 1 : 5;
    byClass[c].increment();
    latency.record(latencyNanos, TimeUnit.NANOSECONDS);
  }
}
