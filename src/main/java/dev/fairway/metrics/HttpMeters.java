package dev.fairway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.handler.codec.http.HttpMethod;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.spi.metrics.HttpClientMetrics;
import io.vertx.core.spi.metrics.HttpServerMetrics;
import io.vertx.core.spi.metrics.VertxMetrics;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Vert.x's own HTTP meters ({@code vertx_http_server_*}, {@code vertx_http_client_*}) for the
 * traffic Fairway forwards on Netty directly, so {@code /metrics} shows them as if Vert.x's HTTP
 * server and client had carried it. Same names and labels as Vert.x's Micrometer metrics, but
 * each meter is looked up once per method and status and then kept, instead of once per event.
 * Connection counts go through the Vert.x metrics SPI. Every method is a no-op when Vert.x
 * metrics are off.
 *
 * <p>Example: {@code Side.Method m = meters.server().method(GET)}, {@code m.begin()} when the
 * request arrives and {@code m.end(200, nanos, bytesIn, bytesOut)} when its response is sent: one
 * count in {@code vertx_http_server_requests_total{code="200",method="GET"}} and one observation
 * in {@code vertx_http_server_response_time_seconds{code="200",method="GET"}}.
 */
public final class HttpMeters {
  /** Meters that record nothing (Vert.x metrics off). */
  static final HttpMeters OFF = new HttpMeters(null, null, null);
  private static final HttpMethod[] METHODS = {
    HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST, HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.OPTIONS,
    HttpMethod.PATCH, HttpMethod.TRACE, HttpMethod.CONNECT
  };

  private final HttpServerMetrics<Object, Object, Object> serverSpi;
  private final HttpClientMetrics<Object, Object, Object> clientSpi;
  private final Side server;
  private final Side client;

  @SuppressWarnings("unchecked")
  private HttpMeters(MeterRegistry registry, HttpServerMetrics<?, ?, ?> serverSpi, HttpClientMetrics<?, ?, ?> clientSpi) {
    this.serverSpi = (HttpServerMetrics<Object, Object, Object>) serverSpi;
    this.clientSpi = (HttpClientMetrics<Object, Object, Object>) clientSpi;
    this.server = registry == null ? null : new Side(registry, "vertx.http.server", true);
    this.client = registry == null ? null : new Side(registry, "vertx.http.client", false);
  }

  /**
   * The meters for {@code vertx}, recorded in {@code registry}, or {@link #OFF} if {@code vertx}
   * has no metrics. Call it before Vert.x's own HTTP server or client serve a request, so the
   * active-request gauges are Fairway's.
   */
  public static HttpMeters of(Vertx vertx, MeterRegistry registry, String host, int port) {
    VertxMetrics metrics = ((VertxInternal) vertx).metrics();
    if (metrics == null) {
      return OFF;
    }
    return new HttpMeters(registry,
        metrics.createHttpServerMetrics(new HttpServerOptions().setHost(host).setPort(port),
            SocketAddress.inetSocketAddress(port, host)),
        metrics.createHttpClientMetrics(new HttpClientOptions()));
  }

  public boolean on() {
    return server != null;
  }

  /** The client-facing meters, or {@code null} when off. */
  public Side server() {
    return server;
  }

  /** The backend-facing meters, or {@code null} when off. */
  public Side client() {
    return client;
  }

  /** A client connection opened; returns its socket metric ({@code vertx_http_server_active_connections}). */
  public Object connected(SocketAddress remote) {
    return serverSpi == null ? null : serverSpi.connected(remote, null);
  }

  public void disconnected(Object socketMetric, SocketAddress remote) {
    if (serverSpi != null) {
      serverSpi.disconnected(socketMetric, remote);
    }
  }

  /** A backend connection opened; returns its socket metric ({@code vertx_http_client_active_connections}). */
  public Object upstreamConnected(SocketAddress remote) {
    return clientSpi == null ? null : clientSpi.connected(remote, null);
  }

  public void upstreamDisconnected(Object socketMetric, SocketAddress remote) {
    if (clientSpi != null) {
      clientSpi.disconnected(socketMetric, remote);
    }
  }

  /** The meters of one side (server: towards clients; client: towards backends). */
  public static final class Side {
    private final MeterRegistry registry;
    private final String prefix;
    private final boolean server;
    private final AtomicReferenceArray<Method> known = new AtomicReferenceArray<>(METHODS.length);
    private final ConcurrentHashMap<String, Method> other = new ConcurrentHashMap<>();

    private Side(MeterRegistry registry, String prefix, boolean server) {
      this.registry = registry;
      this.prefix = prefix;
      this.server = server;
      method(HttpMethod.GET); // before Vert.x's own server and client (admin, health checks) use theirs
      method(HttpMethod.POST);
    }

    /** The meters of one request method, made on first use. */
    public Method method(HttpMethod m) {
      for (int i = 0; i < METHODS.length; i++) {
        if (METHODS[i] == m) {
          Method k = known.get(i);
          return k != null ? k : create(i);
        }
      }
      return other.computeIfAbsent(m.name(), Method::new);
    }

    /** First use of a method: one holder only, since the gauge stays bound to the first one's counter. */
    private synchronized Method create(int i) {
      Method k = known.get(i);
      if (k == null) {
        k = new Method(METHODS[i].name());
        known.set(i, k);
      }
      return k;
    }

    /** The meters of requests with one method: per status, made on first use. */
    public final class Method {
      private final String name;
      private final LongAdder active = new LongAdder();
      private final Counter requests;
      private final DistributionSummary requestBytes;
      private final AtomicReferenceArray<ByStatus> byStatus = new AtomicReferenceArray<>(600);

      private Method(String name) {
        this.name = name;
        Gauge.builder(prefix + ".active.requests", active, LongAdder::doubleValue)
            .description("Number of requests being processed").tag("method", name).register(registry);
        requests = server ? null : Counter.builder(prefix + ".requests").description("Number of requests sent")
            .tag("method", name).register(registry);
        requestBytes = DistributionSummary.builder(prefix + ".request.bytes").description("Size of requests in bytes")
            .baseUnit("bytes").tag("method", name).register(registry);
      }

      /** A request begins. */
      public void begin() {
        active.increment();
        if (requests != null) {
          requests.increment();
        }
      }

      /** The request's body is all read (server) or sent (client). */
      public void requestBytes(long bytes) {
        requestBytes.record(bytes);
      }

      /** The response ended with {@code status}, {@code nanos} after {@link #begin}. */
      public void end(int status, long nanos, long responseBytes) {
        active.decrement();
        ByStatus s = status(status);
        s.count.increment();
        s.time.record(nanos, TimeUnit.NANOSECONDS);
        s.bytes.record(responseBytes);
      }

      /** The request was cut before a response ended. */
      public void reset() {
        active.decrement();
      }

      private ByStatus status(int status) {
        int i = status >= 0 && status < 600 ? status : 0;
        ByStatus s = byStatus.get(i);
        if (s == null) {
          s = new ByStatus(Integer.toString(status));
          byStatus.set(i, s); // a race makes two equal holders of the same registered meters
        }
        return s;
      }

      /** The meters of one method and status. */
      private final class ByStatus {
        final Counter count;
        final Timer time;
        final DistributionSummary bytes;

        ByStatus(String code) {
          count = Counter.builder(prefix + (server ? ".requests" : ".responses"))
              .description(server ? "Number of processed requests" : "Response count with codes")
              .tags("code", code, "method", name).register(registry);
          time = Timer.builder(prefix + ".response.time")
              .description(server ? "Request processing time" : "Response time")
              .tags("code", code, "method", name).register(registry);
          bytes = DistributionSummary.builder(prefix + ".response.bytes").description("Size of responses in bytes")
              .baseUnit("bytes").tags("code", code, "method", name).register(registry);
        }
      }
    }
  }
}
