package dev.fairway.jmh;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * What the meters cost one forwarded GET with {@code metrics.vertx} on (the default): the same
 * recordings, on the same kind of meters in a Prometheus registry, as {@code HttpMeters} (client
 * side and backend side: the active gauges' adders, the counts, the response-time timers, the
 * size summaries) and {@code BackendMeters} (the status class count and the latency histogram)
 * make per request. The meters are shared by every thread, as by every event loop.
 *
 * <p>Example: {@code bench/jmh.sh MeterPath -f 1 -wi 3 -i 5 -t 1}, then {@code -t 2} (both
 * cores recording into the same meters, as under load) gives ns per request: {@code request} all
 * of it, {@code vertxMeters} and {@code backendMeters} its two parts.
 */
@State(Scope.Benchmark)
public class MeterPathBenchmark {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Side server = new Side("vertx.http.server", false);
  private final Side client = new Side("vertx.http.client", true);
  private final Counter backend2xx = Counter.builder("fairway_backend_requests").tag("backend", "b1")
      .tag("class", "2xx").register(registry);
  private final Timer backendLatency = Timer.builder("fairway_backend_latency").tag("backend", "b1")
      .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
      .maximumExpectedValue(Duration.ofMinutes(1)).register(registry);

  /** One side's meters for GET and status 200, as {@code HttpMeters.Side.Method} keeps them. */
  private final class Side {
    final LongAdder active = new LongAdder();
    final Counter requests;
    final DistributionSummary requestBytes;
    final Counter count;
    final Timer time;
    final DistributionSummary bytes;

    Side(String prefix, boolean countsRequests) {
      requests = countsRequests ? Counter.builder(prefix + ".requests").tag("method", "GET").register(registry) : null;
      requestBytes = DistributionSummary.builder(prefix + ".request.bytes").tag("method", "GET").register(registry);
      count = Counter.builder(prefix + (countsRequests ? ".responses" : ".requests")).tags("code", "200", "method", "GET")
          .register(registry);
      time = Timer.builder(prefix + ".response.time").tags("code", "200", "method", "GET").register(registry);
      bytes = DistributionSummary.builder(prefix + ".response.bytes").tags("code", "200", "method", "GET")
          .register(registry);
    }

    void request(long nanos) {
      active.increment();
      if (requests != null) {
        requests.increment();
      }
      requestBytes.record(0);
      active.decrement();
      count.increment();
      time.record(nanos, TimeUnit.NANOSECONDS);
      bytes.record(6);
    }
  }

  @Benchmark
  public void request() {
    long nanos = 150_000;
    server.request(nanos);
    client.request(nanos - 20_000);
    backend2xx.increment();
    backendLatency.record(nanos - 20_000, TimeUnit.NANOSECONDS);
  }

  /** The {@code HttpMeters} part alone (on with {@code metrics.vertx}). */
  @Benchmark
  public void vertxMeters() {
    server.request(150_000);
    client.request(130_000);
  }

  /** The {@code BackendMeters} part alone (always on). */
  @Benchmark
  public void backendMeters() {
    backend2xx.increment();
    backendLatency.record(130_000, TimeUnit.NANOSECONDS);
  }
}
