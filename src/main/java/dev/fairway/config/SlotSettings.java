package dev.fairway.config;

/**
 * On-proxy capacity of a service's backends and the bounded wait for a free slot (seed 000).
 *
 * <p>Example: {@code {"capacity": 100, "waitTimeoutMs": 1000, "maxWaiting": 10000}}: each
 * backend gets at most 100 active requests from this process; a request that finds all full waits
 * up to one second, and at most 10,000 requests wait at once.
 *
 * @param capacity      default capacity of a backend that sets none
 * @param waitTimeoutMs longest wait for a free slot
 * @param maxWaiting    most requests waiting at once for this service
 * @param maxActive     most requests in flight for the whole service; 0 means no cap
 */
public record SlotSettings(int capacity, long waitTimeoutMs, int maxWaiting, int maxActive) {
}
