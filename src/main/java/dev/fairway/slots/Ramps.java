package dev.fairway.slots;

import dev.fairway.balancer.Endpoint;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The backends in slow start and where each is on its ramp.
 *
 * <p>Example: {@code start(b1, new SlowStart(10_000, 10), t)} sets b1's ramp to 0.1;
 * {@code advance(t + 5 s)} to 0.55; {@code advance(t + 10 s)} to 1, and b1 leaves slow start.
 *
 * <p>Used under the table's lock, but for {@link #active}, which any thread may read.
 */
final class Ramps {
  private record Ramp(SlowStart how, long since) {
  }

  private final Map<Endpoint, Ramp> ramping = new IdentityHashMap<>();
  private volatile boolean active;

  /**
   * Starts the ramps of {@code returning} now, each with the longest slow start among the services
   * over it ({@code sharing}); a backend whose services have none gets everything at once.
   */
  void start(List<Endpoint> returning, Map<Endpoint, List<ServiceSlots>> sharing, long nowNanos) {
    for (Endpoint e : returning) {
      SlowStart how = SlowStart.OFF;
      for (ServiceSlots x : sharing.getOrDefault(e, List.of())) {
        if (x.slowStart.durationMs() > how.durationMs()) {
          how = x.slowStart;
        }
      }
      if (how.durationMs() > 0) {
        ramping.put(e, new Ramp(how, nowNanos));
        e.setRamp(how.ramp(0));
        active = true;
      }
    }
  }

  /** Whether any backend is in slow start. */
  boolean active() {
    return active;
  }

  /** Moves every ramp to {@code now}; returns the backends whose share changed. */
  List<Endpoint> advance(long nowNanos) {
    List<Endpoint> moved = new ArrayList<>();
    for (Iterator<Map.Entry<Endpoint, Ramp>> it = ramping.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Endpoint, Ramp> r = it.next();
      Endpoint e = r.getKey();
      double share = r.getValue().how.ramp(nowNanos - r.getValue().since);
      if (share != e.ramp()) {
        e.setRamp(share);
        moved.add(e);
      }
      if (share >= 1.0) {
        it.remove();
      }
    }
    active = !ramping.isEmpty();
    return moved;
  }

  /** Forgets backends no longer in the table. */
  void retain(Collection<Endpoint> keep) {
    ramping.keySet().removeIf(e -> !keep.contains(e));
    active = !ramping.isEmpty();
  }
}
