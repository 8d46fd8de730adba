package dev.fairway.config;

/**
 * The admin listener.
 *
 * <p>Example: {@code {"host": "127.0.0.1", "port": 9090, "token": "s3cret-token-0123"}}; the
 * environment variable {@code FAIRWAY_ADMIN_TOKEN} overrides the token.
 *
 * @param host  address to bind
 * @param port  port to bind (0 picks a free one)
 * @param token bearer token every mutation must carry
 */
public record AdminSettings(String host, int port, String token) {
  @Override
  public String toString() {
    return "AdminSettings[host=" + host + ", port=" + port + ", token=***]";
  }
}
