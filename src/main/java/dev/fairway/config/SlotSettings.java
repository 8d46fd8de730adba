package dev.fairway.config;

import dev.fairway.overload.Criticality;
import java.util.EnumMap;
import java.util.Map;

/**
 * On-proxy capacity of a service's backends and the bounded wait for a free slot (seed 000).
 *
 * <p>Example: {@code {"capacity": 100, "waitTimeoutMs": 1000, "maxWaiting": 10000}}: each
 * backend gets at most 100 active requests from this process; a request that finds all full waits
 * up to one second, and at most 10,000 requests wait at once. With
 * {@code "waitTimeoutMs": {"default": 1000, "sheddable": 100}} a sheddable request waits at most
 * 100 ms and every other class one second.
 *
 * @param capacity           default capacity of a backend that sets none
 * @param waitTimeoutMs      longest wait for a free slot
 * @param maxWaiting         most requests waiting at once for this service
 * @param maxActive          most requests in flight for the whole service; 0 means no cap
 * @param classWaitTimeoutMs per-criticality waits that differ from {@code waitTimeoutMs}
 */
public record SlotSettings(int capacity, long waitTimeoutMs, int maxWaiting, int maxActive,
                           Map<Criticality, Long> classWaitTimeoutMs) {
  public SlotSettings {
    classWaitTimeoutMs = classWaitTimeoutMs.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(classWaitTimeoutMs));
  }

  /** Settings with one wait for every class. */
  public SlotSettings(int capacity, long waitTimeoutMs, int maxWaiting, int maxActive) {
    this(capacity, waitTimeoutMs, maxWaiting, maxActive, Map.of());
  }

  /** The longest wait for a free slot of a request of class {@code c}. */
  public long waitTimeoutMs(Criticality c) {
    Long ms = classWaitTimeoutMs.get(c);
    return ms == null ? waitTimeoutMs : ms;
  }
}
