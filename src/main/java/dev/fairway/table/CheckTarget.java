package dev.fairway.table;

import dev.fairway.config.HealthCheckSettings;
import dev.fairway.config.UpstreamTls;

/**
 * Where and how to run a backend's next health check.
 *
 * <p>Example: {@code CheckTarget[host=127.0.0.1, port=9001, settings=HealthCheckSettings[path=/health, ...]]}.
 *
 * @param host     the backend's host
 * @param port     the backend's port
 * @param settings path, timeout and thresholds of its service's health check
 * @param tls      how to speak TLS to it (its service's {@code tls}), or {@code null} for an
 *                 {@code http://} backend
 * @param h2c      whether it is checked over HTTP/2 with prior knowledge (an {@code h2c://} backend)
 */
public record CheckTarget(String host, int port, HealthCheckSettings settings, UpstreamTls tls, boolean h2c) {
  /** An HTTP/1.1 target. */
  public CheckTarget(String host, int port, HealthCheckSettings settings, UpstreamTls tls) {
    this(host, port, settings, tls, false);
  }
}
