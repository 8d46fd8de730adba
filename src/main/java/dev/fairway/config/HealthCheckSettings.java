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
 * <p>With {@code {"type": "grpc", "grpcService": "shop.Cart"}} every check is instead the
 * standard gRPC health call {@code grpc.health.v1.Health/Check} for service {@code shop.Cart}
 * over HTTP/2; only the answer {@code SERVING} passes. {@code grpcService} is empty for the whole
 * server; {@code path} and the expectations apply to HTTP checks only.
 *
 * @param path               path to {@code GET}
 * @param intervalMs         time between checks
 * @param timeoutMs          longest wait for a check's answer
 * @param healthyThreshold   consecutive successes to become healthy
 * @param unhealthyThreshold consecutive failures to become unhealthy
 * @param expect             what a passing answer looks like ({@code expectStatus}, {@code expectBody})
 * @param host               the {@code Host} header to send; empty for the backend's {@code host:port}
 * @param grpcService        for a gRPC check the service to ask about ({@code ""}: the whole
 *                           server); empty for an HTTP check
 */
public record HealthCheckSettings(String path, long intervalMs, long timeoutMs, int healthyThreshold,
                                  int unhealthyThreshold, HealthExpectation expect, Optional<String> host,
                                  Optional<String> grpcService) {

  /** HTTP check settings. */
  public HealthCheckSettings(String path, long intervalMs, long timeoutMs, int healthyThreshold,
                             int unhealthyThreshold, HealthExpectation expect, Optional<String> host) {
    this(path, intervalMs, timeoutMs, healthyThreshold, unhealthyThreshold, expect, host, Optional.empty());
  }

  /** Settings with the default expectation (any 2xx, any body) and the default {@code Host}. */
  public HealthCheckSettings(String path, long intervalMs, long timeoutMs, int healthyThreshold,
                             int unhealthyThreshold) {
    this(path, intervalMs, timeoutMs, healthyThreshold, unhealthyThreshold, HealthExpectation.DEFAULT,
        Optional.empty());
  }

  /** Whether checks are gRPC health calls rather than HTTP {@code GET}s. */
  public boolean grpc() {
    return grpcService.isPresent();
  }
}
