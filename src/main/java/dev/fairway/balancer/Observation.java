package dev.fairway.balancer;

/**
 * What one proxy verticle saw of one backend during one batching period (about 250 ms).
 *
 * <p>Example: {@code Observation[backendId=b1, requests=40, failures=2, trailingFailures=0,
 * sawSuccess=true, latencyNanos=80000000, loadReport="TEXT cpu_utilization=0.4"]}: 40 requests
 * averaging 2 ms, two failures both followed by a success, and the last ORCA report.
 *
 * @param backendId        the backend
 * @param requests         requests completed (or failed)
 * @param failures         connect failures and 5xx responses among them
 * @param trailingFailures failures since the last success of the period
 * @param sawSuccess       whether any request succeeded
 * @param latencyNanos     sum of the requests' latencies
 * @param loadReport       the last {@code endpoint-load-metrics} value seen, or {@code null}
 */
public record Observation(String backendId, int requests, int failures, int trailingFailures, boolean sawSuccess,
                          long latencyNanos, String loadReport) {
}
