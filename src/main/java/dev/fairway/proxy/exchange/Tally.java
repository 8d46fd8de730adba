package dev.fairway.proxy.exchange;

import dev.fairway.balancer.Observation;
import dev.fairway.balancer.ObservationBatch;
import dev.fairway.balancer.Outcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-verticle counters of request outcomes per backend, drained into an {@link ObservationBatch}
 * every batching period. Event-loop confined: no locks.
 *
 * <p>Example: {@code record("b1", 2_000_000, false, null)} twice and {@code record("b1", 1_000_000,
 * true, null)} once drain to {@code Observation[b1, requests=3, failures=1, trailingFailures=1,
 * sawSuccess=true, latencyNanos=5000000, loadReport=null]}.
 */
public final class Tally {
  private static final class Counts {
    int requests;
    int failures;
    int trailingFailures;
    boolean sawSuccess;
    long latencyNanos;
    String loadReport;
  }

  private final Map<String, Counts> byBackend = new HashMap<>();

  void record(String backendId, long latencyNanos, Outcome outcome, String loadReport) {
    Counts c = byBackend.get(backendId);
    if (c == null) {
      c = new Counts();
      byBackend.put(backendId, c);
    }
    c.requests++;
    c.latencyNanos += latencyNanos;
    if (outcome.failed()) {
      c.failures++;
      c.trailingFailures++;
    } else {
      c.sawSuccess = true;
      c.trailingFailures = 0;
    }
    if (loadReport != null) {
      c.loadReport = loadReport;
    }
  }

  /** The period's batch, or {@code null} when nothing happened; resets the counters. */
  public ObservationBatch drain() {
    if (byBackend.isEmpty()) {
      return null;
    }
    List<Observation> out = new ArrayList<>(byBackend.size());
    byBackend.forEach((id, c) -> out.add(new Observation(id, c.requests, c.failures, c.trailingFailures,
        c.sawSuccess, c.latencyNanos, c.loadReport)));
    byBackend.clear();
    return new ObservationBatch(out);
  }
}
