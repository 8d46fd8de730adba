package dev.fairway.proxy;

import io.netty.handler.codec.http.HttpHeaders;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.headers.HeadersAdaptor;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.spi.metrics.ClientMetrics;
import io.vertx.core.spi.metrics.HttpClientMetrics;
import io.vertx.core.spi.metrics.HttpServerMetrics;
import io.vertx.core.spi.metrics.VertxMetrics;
import io.vertx.core.spi.observability.HttpRequest;
import io.vertx.core.spi.observability.HttpResponse;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Feeds Vert.x's own HTTP meters ({@code vertx_http_server_*}, {@code vertx_http_client_*}) from
 * Fairway's Netty-level forwarding, through the Vert.x metrics SPI, so {@code /metrics} shows them
 * as if Vert.x's HTTP server and client had carried the traffic. Every method is a no-op when
 * Vert.x metrics are off.
 *
 * <p>Example: {@code Object s = meters.connected(remote)} per client connection, then per
 * request {@code Object r = meters.serverRequest(s, request)}, {@code meters.serverResponse(r,
 * response)} and {@code meters.serverEnd(r, response, bytesIn, bytesOut)}: one count in
 * {@code vertx_http_server_requests_total{code="200",method="GET"}}.
 */
public final class HttpMeters {
  /** Meters that record nothing (Vert.x metrics off). */
  static final HttpMeters OFF = new HttpMeters(null, null);

  private final HttpServerMetrics<Object, Object, Object> server;
  private final HttpClientMetrics<Object, Object, Object> client;
  private final ConcurrentHashMap<String, ClientMetrics<Object, HttpRequest, HttpResponse>> endpoints =
      new ConcurrentHashMap<>();

  private HttpMeters(HttpServerMetrics<Object, Object, Object> server, HttpClientMetrics<Object, Object, Object> client) {
    this.server = server;
    this.client = client;
  }

  /** The meters of {@code vertx}'s metrics provider, or {@link #OFF} if it has none. */
  @SuppressWarnings("unchecked")
  public static HttpMeters of(Vertx vertx, String host, int port) {
    VertxMetrics metrics = ((VertxInternal) vertx).metrics();
    if (metrics == null) {
      return OFF;
    }
    return new HttpMeters(
        (HttpServerMetrics<Object, Object, Object>) metrics.createHttpServerMetrics(
            new HttpServerOptions().setHost(host).setPort(port), SocketAddress.inetSocketAddress(port, host)),
        (HttpClientMetrics<Object, Object, Object>) metrics.createHttpClientMetrics(new HttpClientOptions()));
  }

  boolean on() {
    return server != null;
  }

  /** A client connection opened; returns its socket metric. */
  Object connected(SocketAddress remote) {
    return server == null ? null : server.connected(remote, null);
  }

  void disconnected(Object socketMetric, SocketAddress remote) {
    if (server != null) {
      server.disconnected(socketMetric, remote);
    }
  }

  /** A client request began; returns its request metric. */
  Object serverRequest(Object socketMetric, Observed request) {
    return server == null ? null : server.requestBegin(socketMetric, request);
  }

  /** The response head to a client request is being sent. */
  void serverResponse(Object requestMetric, int status) {
    if (server != null && requestMetric != null) {
      server.responseBegin(requestMetric, new Status(status));
    }
  }

  /** The exchange with the client is over (the last response byte written, or the connection cut). */
  void serverEnd(Object requestMetric, int status, long bytesIn, long bytesOut) {
    if (server == null || requestMetric == null) {
      return;
    }
    if (status == 0) {
      server.requestReset(requestMetric);
      return;
    }
    server.requestEnd(requestMetric, null, bytesIn);
    server.responseEnd(requestMetric, new Status(status), bytesOut);
  }

  /** A request to backend {@code hostPort} began; returns its metric. */
  Object clientRequest(String host, int port, Observed request) {
    if (client == null) {
      return null;
    }
    ClientMetrics<Object, HttpRequest, HttpResponse> m = endpoints.computeIfAbsent(host + ":" + port,
        k -> client.createEndpointMetrics(SocketAddress.inetSocketAddress(port, host), 0));
    Object metric = m.requestBegin(request.uri(), request);
    return metric == null ? null : new ClientRequest(m, metric);
  }

  /** The request to the backend is fully sent. */
  void clientRequestSent(Object clientMetric, long bytes) {
    if (clientMetric instanceof ClientRequest c) {
      c.metrics.requestEnd(c.metric, bytes);
    }
  }

  /** The backend's response head arrived. */
  void clientResponse(Object clientMetric, int status) {
    if (clientMetric instanceof ClientRequest c) {
      c.metrics.responseBegin(c.metric, new Status(status));
    }
  }

  /** The backend's response ended ({@code ok}) or the exchange was cut. */
  void clientEnd(Object clientMetric, boolean ok, long bytes) {
    if (clientMetric instanceof ClientRequest c) {
      if (ok) {
        c.metrics.responseEnd(c.metric, bytes);
      } else {
        c.metrics.requestReset(c.metric);
      }
    }
  }

  private record ClientRequest(ClientMetrics<Object, HttpRequest, HttpResponse> metrics, Object metric) {
  }

  private record Status(int statusCode) implements HttpResponse {
    @Override
    public MultiMap headers() {
      return MultiMap.caseInsensitiveMultiMap();
    }
  }

  /** A request as the Vert.x metrics SPI sees it. */
  record Observed(String uri, HttpMethod method, HttpHeaders nettyHeaders, SocketAddress remoteAddress)
      implements HttpRequest {
    static Observed of(io.netty.handler.codec.http.HttpRequest req, SocketAddress remote) {
      return new Observed(req.uri(), HttpMethod.valueOf(req.method().name()), req.headers(), remote);
    }

    @Override
    public int id() {
      return 1;
    }

    @Override
    public String absoluteURI() {
      return null;
    }

    @Override
    public MultiMap headers() {
      return new HeadersAdaptor(nettyHeaders);
    }
  }
}
