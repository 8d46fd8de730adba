package dev.fairway.config;

/**
 * What the admin port's {@code /metrics} exposes besides Fairway's own meters.
 *
 * <p>Example: {@code {"vertx": false}} drops Vert.x's per-request HTTP server, client and pool
 * meters (a sizeable share of the CPU spent per request: see docs/benchmarks.md) and keeps
 * Fairway's backend and service meters.
 *
 * @param vertx whether Vert.x's own HTTP server/client/pool meters are recorded
 */
public record MetricsSettings(boolean vertx) {
}
