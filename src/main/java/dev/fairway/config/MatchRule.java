package dev.fairway.config;

import java.util.List;

/**
 * Which requests a service takes: an exact host (or {@code *}), a path prefix and, optionally,
 * the methods and header conditions the request must all satisfy.
 *
 * <p>Example: {@code {"host": "*", "pathPrefix": "/api", "method": ["POST"], "headers":
 * [{"name": "x-canary", "exact": "yes"}]}} matches {@code POST /api/x} with {@code X-Canary: yes}
 * on any host, and neither {@code GET /api/x} nor a {@code POST} without the field.
 *
 * @param host       lower-case host name without port, or {@code *}
 * @param pathPrefix path prefix starting with {@code /}
 * @param methods    upper-case methods it takes; empty: any
 * @param headers    conditions that must all hold; empty: none
 * @param rewritePrefix what replaces {@code pathPrefix} in the target sent to the backend
 *                      ({@code ""} with {@code stripPrefix}); {@code null}: the target as sent
 */
public record MatchRule(String host, String pathPrefix, List<String> methods, List<HeaderCondition> headers,
                        String rewritePrefix) {
  /** The host that matches every request. */
  public static final String ANY_HOST = "*";

  public MatchRule {
    methods = List.copyOf(methods);
    headers = List.copyOf(headers);
  }

  /** A rule on host and path only. */
  public MatchRule(String host, String pathPrefix) {
    this(host, pathPrefix, List.of(), List.of(), null);
  }

  /** A rule that forwards the target as sent. */
  public MatchRule(String host, String pathPrefix, List<String> methods, List<HeaderCondition> headers) {
    this(host, pathPrefix, methods, headers, null);
  }

  /** Whether this rule matches a request host (already lower-cased, port stripped) and path. */
  public boolean matches(String requestHost, String path) {
    return (ANY_HOST.equals(host) || host.equals(requestHost)) && path.startsWith(pathPrefix);
  }

  /**
   * Whether this rule matches a request by host, path, method and fields.
   *
   * @param fields a request's first value of a lower-case field name, or {@code null}
   */
  public boolean matches(String requestHost, String path, String method, RequestFields fields) {
    if (!matches(requestHost, path) || (!methods.isEmpty() && !methods.contains(method))) {
      return false;
    }
    for (HeaderCondition c : headers) {
      if (!c.test(fields.field(c.name()))) {
        return false;
      }
    }
    return true;
  }

  /** How many conditions beyond host and path it has: the method list counts one, each header one. */
  public int conditions() {
    return (methods.isEmpty() ? 0 : 1) + headers.size();
  }
}
