package dev.fairway.health;

import dev.fairway.config.HealthCheckSettings;

/**
 * How many checks in a row flip a backend's health.
 *
 * <p>Example: {@code new HealthThresholds(2, 3)}: three failed checks in a row make a healthy
 * backend unhealthy, two passing checks in a row make it healthy again.
 *
 * @param healthyThreshold   consecutive passing checks to become healthy, at least 1
 * @param unhealthyThreshold consecutive failed checks to become unhealthy, at least 1
 */
public record HealthThresholds(int healthyThreshold, int unhealthyThreshold) {
  public HealthThresholds {
    if (healthyThreshold < 1 || unhealthyThreshold < 1) {
      throw new IllegalArgumentException(
          "thresholds must be >= 1: healthy=" + healthyThreshold + ", unhealthy=" + unhealthyThreshold);
    }
  }

  /** The thresholds of a service's {@code healthCheck} config. */
  public static HealthThresholds of(HealthCheckSettings settings) {
    return new HealthThresholds(settings.healthyThreshold(), settings.unhealthyThreshold());
  }
}
