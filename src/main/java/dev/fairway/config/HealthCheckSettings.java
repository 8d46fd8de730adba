package dev.fairway.config;

import java.util.Optional;

/**
 * Active health checking of a service's backends.
 *
 * <p>Example: {@code {"path": "/health", "intervalMs": 2000, "timeoutMs": 1000,
 * "healthyThreshold": 2, "unhealthyThreshold": 3, "expectStatus": "200-399", "expectBody": "ok",
 * "host": "api.example"}}: every 2 s Fairway sends {@code GET /health} with
 * {@code Host: api.example}; an answer passes when its status is from 200 to 399 and its body
 * contains {@code ok}. Three failed checks in a row mark a backend unhealthy, two passing ones mark
 * it healthy again.
 *
 * @param path               path to {@code GET}
 * @param intervalMs         time between checks
 * @param timeoutMs          longest wait for a check's answer
 * @param healthyThreshold   consecutive successes to become healthy
 * @param unhealthyThreshold consecutive failures to become unhealthy
 * @param expect             what a passing answer looks like ({@code expectStatus}, {@code expectBody})
 * @param host               the {@code Host} header to send; empty for the backend's {@code host:port}
 */
public record HealthCheckSettings(String path, long intervalMs, long timeoutMs, int healthyThreshold,
                                  int unhealthyThreshold, HealthExpectation expect, Optional<String> host) {

  /** Settings with the default expectation (any 2xx, any body) and the default {@code Host}. */
  public HealthCheckSettings(String path, long intervalMs, long timeoutMs, int healthyThreshold,
                             int unhealthyThreshold) {
    this(path, intervalMs, timeoutMs, healthyThreshold, unhealthyThreshold, HealthExpectation.DEFAULT,
        Optional.empty());
  }
}
