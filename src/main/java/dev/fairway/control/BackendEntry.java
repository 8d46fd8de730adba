package dev.fairway.control;

import dev.fairway.config.BackendConfig;
import dev.fairway.config.HealthCheckSettings;
import dev.fairway.health.BackendStatus;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The balancer's record of one backend: where it is, its capacity and weight, its state and the
 * services that list it. Owned by the balancer verticle; not thread-safe.
 *
 * <p>Example: backend {@code b1} listed by services {@code a} and {@code b} is one entry with
 * {@code services = [a, b]}, one {@link BackendStatus} and one capacity.
 */
final class BackendEntry {
  BackendConfig config;
  HealthCheckSettings healthCheck;
  final BackendStatus status;
  final Set<String> services = new LinkedHashSet<>();
  final LoadStats stats = new LoadStats();
  long checkTimer = -1;
  boolean inAnySubset = true;
  boolean removed;

  BackendEntry(BackendConfig config, HealthCheckSettings healthCheck, BackendStatus status) {
    this.config = config;
    this.healthCheck = healthCheck;
    this.status = status;
  }

  String id() {
    return config.id();
  }
}
