package dev.fairway.proxy;

import dev.fairway.balancer.BalancerSnapshot;
import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.ObservationBatch;
import dev.fairway.balancer.Route;
import dev.fairway.config.ProxySettings;
import dev.fairway.control.Addresses;
import dev.fairway.metrics.FairwayMetrics;
import dev.fairway.slots.SlotTable;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.impl.ConnectionBase;
import io.netty.channel.ChannelPipeline;
import dev.fairway.config.EdgeLimits;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * The event-loop verticle that accepts client requests and forwards them: one instance per event
 * loop, each with its own listener share and its own backend connection pools.
 *
 * <p>Example: deployed with {@code instances = 4} on port 8080, the four instances share the
 * listening socket; a request accepted by instance 2 is routed with the latest
 * {@link BalancerSnapshot}, given a slot by the shared {@link SlotTable}, and forwarded on
 * instance 2's event loop. Nothing on that path sends an event-bus message.
 */
public final class ProxyVerticle extends VerticleBase {
  private static final Buffer NEWLINE = Buffer.buffer("\n");
  private static final long OBSERVATION_PERIOD_MS = 250;
  /**
   * Pooled backend connections idle this long are closed: below the 5 s keep-alive timeout
   * common in backends (Node.js), so a backend rarely closes a connection Fairway is about to
   * reuse; the rare race is retried on a fresh connection (see {@code Exchange}).
   */
  static final int UPSTREAM_KEEP_ALIVE_S = 4;
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);

  private final ProxySettings settings;
  private final int lane;
  private final SlotTable table;
  private final FairwayMetrics metrics;
  private final IntConsumer onListening;
  private final BooleanSupplier draining;
  private BalancerSnapshot snapshot = BalancerSnapshot.EMPTY;
  private HttpClientAgent client;
  private HttpClientAgent freshClient;
  private final AccessLog accessLog;
  private HttpServer server;
  private final Tally tally = new Tally();
  private final ResponseDeadlines deadlines = new ResponseDeadlines();
  /** Backend connections that carried a request, with the guard in front of their decoder (or null). */
  private final Map<HttpConnection, FramingGuard> upstreamGuards = new IdentityHashMap<>();
  private final Map<HttpConnection, FramingGuard> guards = new IdentityHashMap<>();
  private final AtomicInteger clientConnections;
  private final EdgeLimits limits;

  /**
   * @param settings    listener settings
   * @param lane        this instance's index (0 .. instances - 1): its lane in the slot table
   * @param shared      what all proxy verticles of the process share
   * @param onListening told the actual port once listening
   */
  public ProxyVerticle(ProxySettings settings, int lane, ProxyShared shared, IntConsumer onListening) {
    this.settings = settings;
    this.limits = settings.limits();
    this.clientConnections = shared.clientConnections();
    this.lane = lane;
    this.draining = shared.draining();
    this.table = shared.table();
    this.accessLog = AccessLog.of(shared.accessLog());
    this.metrics = shared.metrics();
    this.onListening = onListening;
  }

  @Override
  public Future<?> start() {
    client = vertx.createHttpClient(
        new HttpClientOptions().setKeepAlive(true).setKeepAliveTimeout(UPSTREAM_KEEP_ALIVE_S).setTcpNoDelay(true)
            .setMaxHeaderSize(64 * 1024).setDecompressionSupported(false).setName("fairway-upstream"),
        new PoolOptions().setHttp1MaxSize(4096).setMaxWaitQueueSize(-1));
    freshClient = vertx.createHttpClient(
        new HttpClientOptions().setKeepAlive(false).setTcpNoDelay(true).setMaxHeaderSize(64 * 1024)
            .setDecompressionSupported(false).setName("fairway-upstream-fresh"),
        new PoolOptions().setHttp1MaxSize(4096).setMaxWaitQueueSize(-1));
    MessageConsumer<BalancerSnapshot> consumer = vertx.eventBus().localConsumer(Addresses.SNAPSHOT,
        m -> swap(m.body()));
    HttpServerOptions options = new HttpServerOptions()
        .setHost(settings.host())
        .setPort(settings.port() == 0 ? -1 : settings.port())
        .setTcpNoDelay(true)
        .setHandle100ContinueAutomatically(true)
        .setDecompressionSupported(false)
        .setCompressionSupported(false)
        .setHttp2ClearTextEnabled(false) // HTTP/1.1 only: FramingGuard must see every byte from the start
        // FramingGuard enforces the configured limits first; the decoder's own are a backstop.
        .setMaxInitialLineLength(limits.maxRequestLineBytes() + 64)
        .setMaxHeaderSize(limits.maxHeaderBytes() + 1024)
        .setIdleTimeout((int) Math.min(Integer.MAX_VALUE, limits.idleTimeoutMs()))
        .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    server = vertx.createHttpServer(options)
        .connectionHandler(this::onConnection)
        .invalidRequestHandler(req -> respond(req, Failure.of(req.decoderResult().cause()), 0))
        .requestHandler(this::handle);
    vertx.setPeriodic(OBSERVATION_PERIOD_MS, id -> flushTally());
    vertx.setPeriodic(ResponseDeadlines.SWEEP_MS, id -> deadlines.sweep(System.nanoTime()));
    return consumer.completion()
        .compose(v -> vertx.eventBus().<BalancerSnapshot>request(Addresses.SNAPSHOT_GET, null))
        .onSuccess(m -> swap(m.body()))
        .compose(v -> server.listen())
        .onSuccess(s -> onListening.accept(s.actualPort()));
  }

  private void swap(BalancerSnapshot next) {
    if (next.version() >= snapshot.version()) {
      snapshot = next;
    }
  }

  @Override
  public Future<?> stop() {
    return server.close().eventually(() -> client.close()).eventually(() -> freshClient.close());
  }

  /** Upstream connections that are never pooled: for retries after a stale keep-alive connection. */
  HttpClientAgent freshClient() {
    return freshClient;
  }

  FairwayMetrics metrics() {
    return metrics;
  }

  /** The access log, or {@code null} when it is off. */
  AccessLog accessLog() {
    return accessLog;
  }

  HttpClientAgent client() {
    return client;
  }

  int lane() {
    return lane;
  }

  ResponseDeadlines deadlines() {
    return deadlines;
  }

  Tally tally() {
    return tally;
  }

  /**
   * The guard of a backend connection that carried a request before (a pooled keep-alive one);
   * {@code null} for a connection not {@link #seen} yet, or one without a guard.
   */
  FramingGuard reused(HttpConnection connection) {
    return upstreamGuards.get(connection);
  }

  /** Whether a backend connection carried a request before. */
  boolean seen(HttpConnection connection) {
    return upstreamGuards.containsKey(connection);
  }

  /** Remembers a backend connection's first use, and its guard (null if it has none). */
  void firstUse(HttpConnection connection, FramingGuard guard) {
    upstreamGuards.put(connection, guard);
    connection.closeHandler(v -> upstreamGuards.remove(connection));
  }

  private void flushTally() {
    ObservationBatch batch = tally.drain();
    if (batch != null) {
      vertx.eventBus().send(Addresses.OBSERVATIONS, batch, LOCAL);
    }
  }

  /**
   * A backend answered with {@code Lame-Duck: true}: stop granting it slots in this process at
   * once, and tell the balancer (a rare event, not per request).
   */
  void lameDuckSignal(Endpoint endpoint) {
    if (table.markUnavailable(endpoint.id())) {
      vertx.eventBus().send(Addresses.LAME_DUCK_SIGNAL, endpoint.id(), LOCAL);
    }
  }

  /**
   * Stops accepting connections and closes each open one once its in-flight request is done,
   * within {@code timeoutMs}.
   */
  public Future<Void> drain(long timeoutMs) {
    return server.shutdown(timeoutMs, TimeUnit.MILLISECONDS);
  }

  /**
   * A new client connection: counts it against {@code maxConnections} (refusing it with 503 when
   * over) and puts a {@link FramingGuard} in front of its HTTP decoder.
   */
  private void onConnection(HttpConnection conn) {
    ChannelPipeline pipeline = ((ConnectionBase) conn).channelHandlerContext().pipeline();
    FramingGuard guard = FramingGuard.forRequests(limits);
    pipeline.addBefore("httpDecoder", FramingGuard.NAME, guard);
    if (clientConnections.incrementAndGet() > limits.maxConnections()) {
      clientConnections.decrementAndGet();
      pipeline.channel().eventLoop().execute(() -> guard.refuse(Failure.TOO_MANY_CONNECTIONS));
      return;
    }
    guards.put(conn, guard);
    conn.closeHandler(v -> {
      guards.remove(conn);
      clientConnections.decrementAndGet();
    });
  }

  /** The guard of a client connection, or {@code null} for a refused one. */
  FramingGuard guard(HttpConnection conn) {
    return guards.get(conn);
  }

  EdgeLimits limits() {
    return limits;
  }

  private void handle(HttpServerRequest req) {
    if (draining.getAsBoolean()) {
      req.response().putHeader(HttpHeaders.CONNECTION, "close");
    }
    if (limits.underscoreHeaders() == EdgeLimits.UnderscoreHeaders.REJECT && Headers.hasUnderscoreName(req.headers())) {
      respond(req, Failure.UNDERSCORE_HEADER, 0);
      return;
    }
    HostAndPort authority = req.authority();
    String host = authority == null ? "" : authority.host().toLowerCase(Locale.ROOT);
    Route route = snapshot.route(host, req.path() == null ? "/" : req.path());
    if (route == null) {
      respond(req, Failure.NO_ROUTE, 0);
      return;
    }
    new Exchange(this, req, route, table, metrics.service(route.service()), context).start();
  }

  /** Answers with Fairway's own status for {@code f}: one plain-text line naming the reason. */
  void respond(HttpServerRequest req, Failure f, long waitTimeoutMs) {
    HttpServerResponse resp = req.response();
    if (resp.ended() || resp.closed()) {
      return;
    }
    if (resp.headWritten()) {
      resp.reset();
      return;
    }
    boolean unreadBody = !req.isEnded() && Exchange.hasBody(req);
    resp.setStatusCode(f.status())
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8");
    if (f.retryAfter()) {
      resp.putHeader(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, (waitTimeoutMs + 999) / 1000)));
    }
    boolean close = f.closeConnection() || unreadBody;
    if (close) {
      resp.putHeader(HttpHeaders.CONNECTION, "close");
    }
    if (!close) {
      req.resume();
    }
    resp.end(Buffer.buffer(f.reason()).appendBuffer(NEWLINE)).onComplete(v -> {
      if (close) {
        req.connection().close();
      }
    });
  }
}
