package dev.fairway.proxy.exchange;

import dev.fairway.balancer.Observation;
import dev.fairway.balancer.ObservationBatch;
import dev.fairway.balancer.Outcome;
import dev.fairway.balancer.OutcomeCounts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-verticle counts of request outcomes per backend, drained into an {@link ObservationBatch}
 * every batching period. Counted per backend, not per service: each service's outlier detector
 * reads the observations of its members. Event-loop confined: no locks.
 *
 * <p>Example: {@code record("b1", 2_000_000, SUCCESS, null)}, {@code record("b1", 1_000_000,
 * SERVER_ERROR, null)} and {@code record("b2", 1_000_000, OVERLOADED, null)} drain to one batch of
 * {@code Observation[b1, requests=2, failures=1, successes=1, overloaded=0, fiveXx=Run[0, 1, 1,
 * true], ...]} and {@code Observation[b2, requests=1, failures=1, successes=0, overloaded=1,
 * fiveXx=Run[0, 0, 0, false], ...]} (see {@link OutcomeCounts}); the next drain is {@code null}.
 */
public final class Tally {
  private final Map<String, OutcomeCounts> byBackend = new HashMap<>();

  void record(String backendId, long latencyNanos, Outcome outcome, String loadReport) {
    byBackend.computeIfAbsent(backendId, k -> new OutcomeCounts()).add(latencyNanos, outcome, loadReport);
  }

  /** The period's batch, or {@code null} when nothing happened; resets the counts. */
  public ObservationBatch drain() {
    if (byBackend.isEmpty()) {
      return null;
    }
    List<Observation> out = new ArrayList<>(byBackend.size());
    byBackend.forEach((id, c) -> out.add(c.observation(id)));
    byBackend.clear();
    return new ObservationBatch(out);
  }
}
