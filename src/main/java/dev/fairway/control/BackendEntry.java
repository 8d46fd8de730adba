package dev.fairway.control;

import dev.fairway.balancer.ScoreTracker;
import dev.fairway.config.BackendConfig;
import dev.fairway.config.BalancingSettings;
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
  final ScoreTracker score;
  /** The capability score times the configured weight, as last published. */
  double weight;
  long checkTimer = -1;
  boolean inAnySubset = true;
  boolean removed;

  BackendEntry(BackendConfig config, HealthCheckSettings healthCheck, BalancingSettings balancing,
               BackendStatus status) {
    this.config = config;
    this.weight = config.weight();
    this.score = new ScoreTracker(balancing.blackoutMs() * 1_000_000L, balancing.expirationMs() * 1_000_000L,
        balancing.errorUtilizationPenalty());
    this.healthCheck = healthCheck;
    this.status = status;
  }

  String id() {
    return config.id();
  }
}
