package dev.fairway.config;

/**
 * Active health checking of a service's backends.
 *
 * <p>Example: {@code {"path": "/health", "intervalMs": 2000, "timeoutMs": 1000,
 * "healthyThreshold": 2, "unhealthyThreshold": 3}}: three failed checks in a row mark a backend
 * unhealthy, two passing ones mark it healthy again.
 *
 * @param path               path to {@code GET}
 * @param intervalMs         time between checks
 * @param timeoutMs          longest wait for a check's answer
 * @param healthyThreshold   consecutive successes to become healthy
 * @param unhealthyThreshold consecutive failures to become unhealthy
 */
public record HealthCheckSettings(String path, long intervalMs, long timeoutMs, int healthyThreshold,
                                  int unhealthyThreshold) {
}
