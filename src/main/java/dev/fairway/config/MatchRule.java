package dev.fairway.config;

/**
 * Which requests a service takes: an exact host (or {@code *}) and a path prefix.
 *
 * <p>Example: {@code {"host": "*", "pathPrefix": "/api"}} matches {@code GET /api/x} on any host;
 * when several services match, the longest prefix wins.
 *
 * @param host       lower-case host name without port, or {@code *}
 * @param pathPrefix path prefix starting with {@code /}
 */
public record MatchRule(String host, String pathPrefix) {
  /** The host that matches every request. */
  public static final String ANY_HOST = "*";

  /** Whether this rule matches a request host (already lower-cased, port stripped) and path. */
  public boolean matches(String requestHost, String path) {
    return (ANY_HOST.equals(host) || host.equals(requestHost)) && path.startsWith(pathPrefix);
  }
}
