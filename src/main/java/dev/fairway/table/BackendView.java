package dev.fairway.table;

import dev.fairway.health.BackendState;

/**
 * What the admin API and the metrics show of one backend, copied out of the table.
 *
 * <p>Example: {@code BackendView[id=b1, url=http://127.0.0.1:9001, state=HEALTHY,
 * reason=assumed healthy at start-up, inAnySubset=true, capacity=3, weight=1.0, utilization=0.42, qps=120.0,
 * eps=0.5, latencyMs=2.0, badLoadReports=0]}.
 *
 * @param id          backend id
 * @param url         its URL
 * @param state       its one reported state
 * @param reason      why it is in that state, one line
 * @param inAnySubset whether some service's subset holds it
 * @param capacity    its configured on-proxy capacity
 * @param weight      the capability score times the configured weight, as last published
 * @param utilization what it last reported of itself (ORCA), 0 when nothing
 * @param qps         requests per second through this proxy, smoothed
 * @param eps         failures per second through this proxy, smoothed
 * @param latencyMs   mean latency through this proxy, smoothed
 * @param badLoadReports malformed binary load reports ({@code endpoint-load-metrics-bin}) it sent, ignored
 */
public record BackendView(String id, String url, BackendState state, String reason, boolean inAnySubset,
                          int capacity, double weight, double utilization, double qps, double eps,
                          double latencyMs, long badLoadReports) {
}
