package dev.fairway.route;

import dev.fairway.config.RequestFields;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The immutable view every proxy verticle routes with, published by the balancer on each change.
 *
 * <p>Example: routes {@code /} and {@code /api} (any host): {@code route("x", "/api/v1")} is the
 * {@code /api} route, {@code route("x", "/")} the other; an exact host beats {@code *} at the
 * same prefix length, and at the same host and prefix a rule with more conditions (methods,
 * headers) is tried before one with fewer; ties keep the file order.
 *
 * @param version increases with every published snapshot
 * @param routes  routes in match order (longest prefix first, exact host before {@code *}, more
 *                conditions first, then file order)
 * @param byName  the same routes by service name (for the targets of a split)
 */
public record BalancerSnapshot(long version, List<Route> routes, Map<String, Route> byName) {
  private static final Comparator<Route> MATCH_ORDER = Comparator
      .comparingInt((Route r) -> -r.match().pathPrefix().length())
      .thenComparing(r -> "*".equals(r.match().host()))
      .thenComparingInt(r -> -r.match().conditions());

  /** An empty snapshot: every request is unrouted. */
  public static final BalancerSnapshot EMPTY = new BalancerSnapshot(0, List.of());

  public BalancerSnapshot {
    List<Route> sorted = new ArrayList<>(routes);
    sorted.sort(MATCH_ORDER);
    routes = List.copyOf(sorted);
    byName = Map.copyOf(byName);
  }

  /** A snapshot of {@code routes}, found by service name too. */
  public BalancerSnapshot(long version, List<Route> routes) {
    this(version, routes, index(routes));
  }

  private static Map<String, Route> index(List<Route> routes) {
    Map<String, Route> out = new HashMap<>();
    for (Route r : routes) {
      out.put(r.service(), r);
    }
    return out;
  }

  /** The route of the service {@code name}, or {@code null}. */
  public Route service(String name) {
    return byName.get(name);
  }

  /**
   * @param host lower-case request host without port
   * @param path request path
   * @return the first matching route, or {@code null}
   */
  public Route route(String host, String path) {
    return route(host, path, "GET", name -> null);
  }

  /**
   * @param host   lower-case request host without port
   * @param path   request path
   * @param method request method, such as {@code POST}
   * @param fields a request's first value of a lower-case field name, or {@code null}
   * @return the first route whose rule matches, or {@code null}
   */
  public Route route(String host, String path, String method, RequestFields fields) {
    for (Route r : routes) {
      if (r.match().matches(host, path, method, fields)) {
        return r;
      }
    }
    return null;
  }
}
