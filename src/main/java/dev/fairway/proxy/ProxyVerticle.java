package dev.fairway.proxy;

import dev.fairway.accesslog.AccessLog;
import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.ObservationBatch;
import dev.fairway.config.EdgeLimits;
import dev.fairway.config.ProxySettings;
import dev.fairway.control.Addresses;
import dev.fairway.metrics.FairwayMetrics;
import dev.fairway.metrics.HttpMeters;
import dev.fairway.proxy.exchange.ExchangeContext;
import dev.fairway.proxy.exchange.Gateway;
import dev.fairway.proxy.exchange.OverloadLane;
import dev.fairway.proxy.exchange.ResponseDeadlines;
import dev.fairway.proxy.exchange.Tally;
import dev.fairway.proxy.h2.ClientSide;
import dev.fairway.proxy.h2.H2c;
import dev.fairway.proxy.upstream.UpstreamPool;
import dev.fairway.proxy.upstream.UpstreamTlsContexts;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.proxy.wire.FramingGuard;
import dev.fairway.proxy.wire.HeadAwareCodecs;
import dev.fairway.route.BalancerSnapshot;
import dev.fairway.slots.SlotTable;
import dev.fairway.tracing.Tracer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The event-loop verticle that forwards client requests: one instance per event loop, each with
 * its own share of the client connections and its own backend connection pool. Forwarding runs on
 * Netty directly (the {@link Listener} hands this verticle connections on its event loop); Vert.x
 * supplies the event loops, the event bus, timers and the meters.
 *
 * <p>Example: deployed with {@code instances = 4} on port 8080, a connection handed to instance 2
 * has each request routed with the latest {@link BalancerSnapshot}, given a slot by the shared
 * {@link SlotTable}, and forwarded on instance 2's event loop over instance 2's pooled backend
 * connections. Nothing on that path sends an event-bus message.
 */
public final class ProxyVerticle extends VerticleBase {
  private static final long OBSERVATION_PERIOD_MS = 250;
  private static final long POOL_SWEEP_MS = 500;
  private static final long DRAIN_CHECK_MS = 20;
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);

  private final int lane;
  private final SlotTable table;
  private final FairwayMetrics metrics;
  private final BooleanSupplier draining;
  private final AccessLog accessLog;
  private final Listener listener;
  private final HttpMeters meters;
  private final UpstreamTlsContexts upstreamTls;
  private final OverloadLane overload;
  private final Tracer tracer;
  private final AtomicInteger clientConnections;
  private final EdgeLimits limits;
  private final long drainTimeoutMs;
  private final Tally tally = new Tally();
  private final ResponseDeadlines deadlines = new ResponseDeadlines();
  private final Set<ClientConnection> connections = Collections.newSetFromMap(new IdentityHashMap<>());
  private BalancerSnapshot snapshot = BalancerSnapshot.EMPTY;
  private EventLoop loop;
  private UpstreamPool pool;
  private Initializer cleartext;
  private Initializer secure;
  private Gateway gateway;

  /**
   * @param settings listener settings
   * @param lane     this instance's index (0 .. instances - 1): its lane in the slot table
   * @param shared   what all proxy verticles of the process share
   */
  public ProxyVerticle(ProxySettings settings, int lane, ProxyShared shared) {
    this.tracer = shared.tracer();
    this.limits = settings.limits();
    this.drainTimeoutMs = settings.drainTimeoutMs();
    this.clientConnections = shared.clientConnections();
    this.lane = lane;
    this.draining = shared.draining();
    this.table = shared.table();
    this.accessLog = AccessLog.of(shared.accessLog());
    this.metrics = shared.metrics();
    this.listener = shared.listener();
    this.meters = shared.httpMeters();
    this.upstreamTls = shared.upstreamTls();
    this.overload = new OverloadLane(shared.overload(), shared.lanes(), shared.overloadBoard(), System.nanoTime() ^ lane);
  }

  @Override
  public Future<?> start() {
    loop = ((ContextInternal) context).nettyEventLoop();
    VertxInternal vx = (VertxInternal) vertx;
    pool = new UpstreamPool(loop, vx.transport().channelFactory(false), vx.nameResolver().nettyAddressResolverGroup(),
        meters, upstreamTls);
    ExchangeContext ctx = new ExchangeContext(lane, table, pool, deadlines, tally, metrics, meters, accessLog, limits,
        draining, this::lameDuckSignal, overload, tracer);
    gateway = new Gateway(ctx, () -> snapshot);
    cleartext = new Initializer(false);
    secure = new Initializer(true);
    MessageConsumer<BalancerSnapshot> consumer = vertx.eventBus().localConsumer(Addresses.SNAPSHOT,
        m -> swap(m.body()));
    vertx.setPeriodic(OBSERVATION_PERIOD_MS, id -> flushTally());
    vertx.setPeriodic(ResponseDeadlines.SWEEP_MS, id -> {
      long now = System.nanoTime();
      deadlines.sweep(now);
      table.tick(now); // failure penalties, local holds, slow starts
    });
    vertx.setPeriodic(POOL_SWEEP_MS, id -> pool.sweep(System.nanoTime()));
    return consumer.completion()
        .compose(v -> vertx.eventBus().<BalancerSnapshot>request(Addresses.SNAPSHOT_GET, null))
        .onSuccess(m -> swap(m.body()))
        .onSuccess(m -> listener.join(this));
  }

  private void swap(BalancerSnapshot next) {
    if (next.version() >= snapshot.version()) {
      snapshot = next;
    }
  }

  @Override
  public Future<?> stop() {
    listener.leave(this);
    new ArrayList<>(connections).forEach(c -> c.channel().close());
    pool.closeIdle();
    return Future.succeededFuture();
  }

  EventLoop loop() {
    return loop;
  }

  /**
   * Sets up the pipeline of a client connection handed to this verticle.
   *
   * @param tls whether the connection came in on the TLS listener (its TLS handlers come first)
   */
  ChannelInitializer<Channel> initializer(boolean tls) {
    return tls ? secure : cleartext;
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
  private void lameDuckSignal(Endpoint endpoint) {
    if (table.markUnavailable(endpoint.id())) {
      vertx.eventBus().send(Addresses.LAME_DUCK_SIGNAL, endpoint.id(), LOCAL);
    }
  }

  /**
   * Closes this verticle's client connections as their in-flight exchanges end (idle ones at
   * once), and any still open after {@code timeoutMs}. The {@link Listener} must have stopped
   * accepting first.
   */
  public Future<Void> drain(long timeoutMs) {
    Promise<Void> drained = Promise.promise();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    loop.execute(() -> {
      for (ClientConnection c : new ArrayList<>(connections)) {
        if (c.idle() || c.h2()) {
          c.channel().close(); // HTTP/2: a GOAWAY, and the close once the streams under way end
        }
      }
      checkDrained(drained, deadline);
    });
    return drained.future();
  }

  private void checkDrained(Promise<Void> drained, long deadline) {
    if (connections.isEmpty()) {
      drained.complete();
      return;
    }
    if (System.nanoTime() - deadline >= 0) {
      new ArrayList<>(connections).forEach(c -> c.channel().close());
      drained.complete();
      return;
    }
    loop.schedule(() -> checkDrained(drained, deadline), DRAIN_CHECK_MS, TimeUnit.MILLISECONDS);
  }

  /**
   * The pipeline of a client connection: {@link H2c} looks at the first bytes for HTTP/2's preface
   * (and steps aside if they are not, or hands the connection to an HTTP/2 lane, {@link LaneHandoff},
   * if this is not one), then the {@link FramingGuard} sees every byte, then
   * Netty's HTTP/1.1 request decoder and response encoder, and the {@link ClientConnection} (which
   * keeps the idle timeout). A connection over {@code maxConnections} is answered 503 and closed.
   * On a TLS connection these come after the TLS handlers (decrypted bytes; an ALPN {@code h2}
   * client opens with the preface too), and the connection tells its requests it is secure.
   */
  private final class Initializer extends ChannelInitializer<Channel> {
    private final boolean tls;
    private final H2c.Handoff handoff;

    Initializer(boolean tls) {
      this.tls = tls;
      this.handoff = new LaneHandoff(listener, ProxyVerticle.this, tls);
    }

    @Override
    public boolean isSharable() {
      return true;
    }

    @Override
    protected void initChannel(Channel ch) {
      ChannelPipeline p = ch.pipeline();
      boolean refused = !LaneHandoff.moved(ch) && !admitted(ch); // a moved one was counted where it came in
      FramingGuard guard = FramingGuard.forRequests(limits);
      if (limits.h2MaxConcurrentStreams() > 0 && !refused) { // refused in HTTP/1.1, whatever the client speaks
        p.addLast(H2c.NAME, new H2c(gateway, limits, drainTimeoutMs, handoff));
      }
      p.addLast(FramingGuard.NAME, guard);
      // FramingGuard enforces the configured limits first; the decoder's own are a backstop.
      p.addLast(UpstreamPool.DECODER, HeadAwareCodecs.requestDecoder(limits));
      HeadAwareCodecs.ResponseEncoder encoder = new HeadAwareCodecs.ResponseEncoder();
      p.addLast(UpstreamPool.ENCODER, encoder);
      p.addLast(ClientSide.NAME, new ClientConnection(gateway, connections, guard, encoder, tls));
      if (refused) {
        ch.eventLoop().execute(() -> guard.refuse(Failure.TOO_MANY_CONNECTIONS));
      }
    }

    /** Counts {@code ch} against {@code maxConnections} while it is open, unless that is one too many. */
    private boolean admitted(Channel ch) {
      if (clientConnections.incrementAndGet() > limits.maxConnections()) {
        clientConnections.decrementAndGet();
        return false;
      }
      ch.closeFuture().addListener(f -> clientConnections.decrementAndGet());
      return true;
    }
  }
}
