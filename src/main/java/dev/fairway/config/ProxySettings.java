package dev.fairway.config;

/**
 * The client-facing HTTP listener.
 *
 * <p>Example: {@code {"host": "0.0.0.0", "port": 8080, "instances": 0}} listens on every
 * interface with one proxy verticle per event loop.
 *
 * @param host      address to bind
 * @param port      port to bind (0 picks a free one)
 * @param instances number of proxy verticles; 0 means one per event loop
 */
public record ProxySettings(String host, int port, int instances) {
}
