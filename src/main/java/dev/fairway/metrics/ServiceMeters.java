package dev.fairway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;

/**
 * The per-service meters the proxy records on its request path.
 *
 * <p>Example: a request that waited 120 ms for a slot records 0.12 s in {@code slotWait}; one that
 * gave up after {@code waitTimeoutMs} increments {@code slotTimeouts}.
 *
 * @param slotWait      wait of requests that found every slot taken
 * @param slotTimeouts  requests that got no slot within {@code waitTimeoutMs}
 * @param queueFull     requests rejected at once because {@code maxWaiting} requests waited
 * @param noBackend     requests rejected because no backend of the subset was available
 * @param retries       tries sent again to another backend
 * @param throttled     requests refused locally by adaptive throttling
 * @param retryBudgetExhausted retries not made because the retry budget was spent
 * @param slowClients   responses whose client held them back for {@code slowClientMs}: their slot was handed back
 * @param shed          waiting requests refused to make room for a more critical one in a full queue
 */
public record ServiceMeters(Timer slotWait, Counter slotTimeouts, Counter queueFull, Counter noBackend,
                            Counter retries, Counter throttled, Counter retryBudgetExhausted, Counter slowClients,
                            Counter shed) {
}
