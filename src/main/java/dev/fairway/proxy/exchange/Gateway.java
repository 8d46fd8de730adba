package dev.fairway.proxy.exchange;

import dev.fairway.config.EdgeLimits;
import dev.fairway.config.HeaderEdit;
import dev.fairway.proxy.wire.ClientRequest;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.proxy.wire.RequestId;
import dev.fairway.route.BalancerSnapshot;
import dev.fairway.route.Route;
import dev.fairway.route.SplitPicks;
import dev.fairway.route.TargetRewrite;
import dev.fairway.tracing.TraceSpan;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Where a lane's client connections and HTTP/2 streams turn request heads into exchanges: it
 * routes each by its target and {@code Host} with the latest {@link BalancerSnapshot}, and
 * answers itself what cannot go on.
 *
 * <p>Example: {@code GET http://Shop:8080/api/x?y} is routed by host {@code shop} and path
 * {@code /api/x}, with {@code Shop:8080} as its authority (the absolute form wins over
 * {@code Host}); with no route for it the client gets Fairway's {@code 404} and no exchange. A
 * route that splits hands the request to a target service picked by weight, in this lane's own
 * sequence ({@link SplitPicks}); the matched route's path rewrite and the serving route's
 * {@code requestHeaders} apply.
 */
public final class Gateway {
  private final ExchangeContext ctx;
  private final Supplier<BalancerSnapshot> snapshot;
  /** This lane's weighted picks among split targets. */
  private final SplitPicks splits = new SplitPicks();

  public Gateway(ExchangeContext ctx, Supplier<BalancerSnapshot> snapshot) {
    this.ctx = ctx;
    this.snapshot = snapshot;
  }

  public EdgeLimits limits() {
    return ctx.limits();
  }

  /** Whether the proxy is shutting down. */
  public boolean draining() {
    return ctx.draining().getAsBoolean();
  }

  public ExchangeContext context() {
    return ctx;
  }

  /**
   * A request head arrived on {@code conn}: its exchange, not yet started, or {@code null} if
   * Fairway answered it itself (no service matches, a field name with an underscore).
   */
  public Exchange open(Downstream conn, ClientRequest req) {
    String requestId = RequestId.resolve(req.field(RequestId.HEADER));
    if (ctx.limits().underscoreHeaders() == EdgeLimits.UnderscoreHeaders.REJECT && req.hasUnderscoreName()) {
      answer(conn, req, Failure.UNDERSCORE_HEADER, requestId);
      return null;
    }
    String uri = req.uri();
    String authority = req.host();
    int pathStart = 0;
    if (!uri.startsWith("/")) {
      int scheme = uri.indexOf("://");
      if (scheme > 0) {
        int slash = uri.indexOf('/', scheme + 3);
        authority = uri.substring(scheme + 3, slash < 0 ? uri.length() : slash); // absolute form wins (RFC 9112 §3.2.2)
        pathStart = slash < 0 ? uri.length() : slash;
      }
    }
    BalancerSnapshot routes = snapshot.get();
    Route matched = routes.route(hostOf(authority), pathOf(uri, pathStart), req.method().name(), req);
    Route route = matched == null ? null : splits.resolve(routes, matched);
    if (route == null) {
      answer(conn, req, Failure.NO_ROUTE, requestId);
      return null;
    }
    String rewrite = matched.match().rewritePrefix();
    if (rewrite != null) {
      req.forwardTarget(TargetRewrite.apply(uri, pathStart, matched.match().pathPrefix(), rewrite));
    }
    HeaderEdit edit = route.headers().request();
    if (!edit.isEmpty()) {
      req.editFields(edit);
    }
    return new Exchange(ctx, conn, req, route, authority, requestId);
  }

  /** Fairway answers {@code req} itself with {@code f}, before any service: its span (if traced) has no service and no try. */
  private void answer(Downstream conn, ClientRequest req, Failure f, String requestId) {
    TraceSpan span = ctx.tracer().start(req, null, requestId);
    conn.respond(req.version(), req.keepAlive(), f, 0, req.hasBody(), req.grpc(), requestId);
    span.end(null, 0, 0, f.status(), f.reason());
  }

  /** The host of an authority ({@code Host} value), lower case, without the port; "" if none. */
  static String hostOf(String authority) {
    if (authority == null) {
      return "";
    }
    int end = authority.length();
    int colon = authority.lastIndexOf(':');
    if (colon >= 0 && authority.indexOf(']') < colon) {
      end = colon;
    }
    String host = end == authority.length() ? authority : authority.substring(0, end);
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        return host.toLowerCase(Locale.ROOT);
      }
    }
    return host;
  }

  /** The path of a request target from {@code start}: up to its query or fragment; "/" if empty. */
  static String pathOf(String uri, int start) {
    int end = uri.length();
    for (int i = start; i < end; i++) {
      char c = uri.charAt(i);
      if (c == '?' || c == '#') {
        end = i;
        break;
      }
    }
    if (end == start) {
      return "/";
    }
    return start == 0 && end == uri.length() ? uri : uri.substring(start, end);
  }
}
