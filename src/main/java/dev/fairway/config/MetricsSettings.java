package dev.fairway.config;

/**
 * What the admin port's {@code /metrics} exposes besides Fairway's own meters.
 *
 * <p>Example: {@code {"vertx": false}} drops Vert.x's per-request HTTP server, client and pool
 * meters (a few per cent of CPU per request under load) and keeps Fairway's backend and service
 * meters.
 *
 * @param vertx whether Vert.x's own HTTP server/client/pool meters are recorded
 */
public record MetricsSettings(boolean vertx) {
}
