package dev.fairway;

import dev.fairway.admin.AdminVerticle;
import dev.fairway.balancer.ObservationBatch;
import dev.fairway.config.FairwayConfig;
import dev.fairway.control.BalancerVerticle;
import dev.fairway.control.LocalCodec;
import dev.fairway.demo.DemoVerticle;
import dev.fairway.metrics.FairwayMetrics;
import dev.fairway.metrics.HttpMeters;
import dev.fairway.proxy.Listener;
import dev.fairway.proxy.ProxyProtocol;
import dev.fairway.proxy.ProxyShared;
import dev.fairway.proxy.exchange.OverloadBoard;
import dev.fairway.proxy.ProxyVerticle;
import dev.fairway.proxy.tls.TlsTerminator;
import dev.fairway.proxy.upstream.UpstreamTlsContexts;
import dev.fairway.route.BalancerSnapshot;
import dev.fairway.slots.SlotTable;
import dev.fairway.tracing.OtelTracer;
import dev.fairway.tracing.Tracer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deploys one Fairway into a Vert.x instance: demo backends (when configured), the balancer, the
 * admin listener and the proxy verticles.
 *
 * <p>Example: {@code Fairway.start(vertx, config)} completes with a {@code Fairway} whose
 * {@link #proxyPort()}, {@link #tlsPort()} and {@link #adminPort()} are the ports actually bound
 * (useful with port 0).
 */
public final class Fairway {
  private static final Logger LOG = LoggerFactory.getLogger(Fairway.class);

  private final Vertx vertx;
  private final FairwayConfig config;
  private final SlotTable table;
  private final BalancerVerticle.ConfigSource source;
  private final FairwayMetrics metrics;
  private final AtomicInteger proxyPort = new AtomicInteger(-1);
  private final AtomicInteger tlsPort = new AtomicInteger(-1);
  private final AtomicInteger adminPort = new AtomicInteger();
  private final AtomicBoolean draining = new AtomicBoolean();
  private final AtomicInteger clientConnections = new AtomicInteger();
  private final UpstreamTlsContexts upstreamTls = new UpstreamTlsContexts();
  private final List<ProxyVerticle> proxies = new CopyOnWriteArrayList<>();
  private final Listener listener;
  private final HttpMeters httpMeters;
  private Future<Void> drained;

  private Fairway(Vertx vertx, FairwayConfig config, BalancerVerticle.ConfigSource source,
                  PrometheusMeterRegistry registry) {
    this.source = source;
    this.vertx = vertx;
    this.config = config;
    this.table = new SlotTable(config.subsetting().clientId(), proxyInstances(config));
    this.listener = new Listener(h2Instances(config));
    if (vertx.isClustered() && config.cluster().shareCapacity()) {
      table.shareCapacity(); // each backend's capacity is the cluster's; CapacityLeases sets this member's shares
    }
    this.metrics = new FairwayMetrics(registry, table);
    this.httpMeters = HttpMeters.of(vertx, registry, config.proxy().host(), meteredPort(config));
  }

  /** The port that names the proxy in Vert.x's HTTP meters: the cleartext one, else the TLS one. */
  private static int meteredPort(FairwayConfig config) {
    return config.proxy().cleartext() ? config.proxy().port() : config.proxy().tls().orElseThrow().port();
  }

  /** Deploys everything with a registry of its own; fails if any listener cannot bind. */
  public static Future<Fairway> start(Vertx vertx, FairwayConfig config) {
    return start(vertx, config, null, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
  }

  /**
   * Deploys everything; fails if any listener cannot bind.
   *
   * @param source   the config file to watch for changes, or {@code null}
   * @param registry where Fairway's meters go (and Vert.x's own, if {@code vertx} was built with
   *                 it); scraped at the admin port's {@code /metrics}
   */
  public static Future<Fairway> start(Vertx vertx, FairwayConfig config, BalancerVerticle.ConfigSource source,
                                      PrometheusMeterRegistry registry) {
    Fairway f = new Fairway(vertx, config, source, registry);
    return f.deploy().map(f);
  }

  private Future<?> deploy() {
    vertx.eventBus().registerDefaultCodec(BalancerSnapshot.class, new LocalCodec<>(BalancerSnapshot.class));
    vertx.eventBus().registerDefaultCodec(ObservationBatch.class, new LocalCodec<>(ObservationBatch.class));
    Future<?> demo = config.demo()
        .<Future<?>>map(d -> vertx.deployVerticle(new DemoVerticle(d)).onSuccess(id ->
            LOG.info("demo backends listening on 127.0.0.1 ports {}",
                d.backends().stream().map(b -> Integer.toString(b.port())).toList())))
        .orElse(Future.succeededFuture());
    int instances = proxyInstances(config);
    OverloadBoard overloadBoard = new OverloadBoard();
    metrics.throttleReadings(overloadBoard);
    TlsTerminator tls;
    try {
      tls = config.proxy().tls().isPresent() ? TlsTerminator.create(config.proxy().tls().get(), metrics.registry()) : null;
    } catch (SSLException e) {
      return Future.failedFuture(e);
    }
    Tracer tracer = OtelTracer.of(vertx, config.tracing());
    ProxyProtocol proxyProtocol = config.proxy().acceptProxyProtocol()
        ? new ProxyProtocol(metrics.registry(), config.proxy().limits().requestHeadersTimeoutMs()) : null;
    TlsReloads reloads = new TlsReloads(vertx, config.proxy().tls(), tls, upstreamTls);
    return demo
        .compose(v -> vertx.deployVerticle(new BalancerVerticle(config, source, table, metrics,
            reloads::configChanged, upstreamTls)))
        .compose(v -> vertx.deployVerticle(new AdminVerticle(config.admin(), (PrometheusMeterRegistry) metrics.registry(), draining::get, adminPort::set)))
        .onSuccess(v -> LOG.info("admin listening on http://{}:{}", config.admin().host(), adminPort.get()))
        .compose(v -> vertx.deployVerticle(() -> {
          ProxyVerticle p = new ProxyVerticle(config.proxy(), proxies.size(), new ProxyShared(table, metrics,
              draining::get, clientConnections, config.accessLog(), listener, httpMeters, upstreamTls, config.overload(),
              overloadBoard, instances, tracer));
          proxies.add(p);
          return p;
        }, new DeploymentOptions().setInstances(instances)))
        .compose(v -> bindCleartext(proxyProtocol))
        .compose(v -> bindTls(tls, proxyProtocol))
        .onSuccess(v -> reloads.start(config.reload().scanPeriodMs()))
        .onSuccess(v -> LOG.info("proxy: {} event-loop instances ({} for HTTP/2 clients), {} transport", instances,
            h2Instances(config), vertx.isNativeTransportEnabled() ? "epoll" : "nio"));
  }

  private Future<?> bindCleartext(ProxyProtocol proxyProtocol) {
    if (!config.proxy().cleartext()) {
      LOG.info("proxy: no cleartext listener (proxy.port -1)");
      return Future.succeededFuture();
    }
    return listener.bind(vertx, config.proxy().host(), config.proxy().port(), null, proxyProtocol)
        .onSuccess(proxyPort::set)
        .onSuccess(p -> LOG.info("proxy listening on http://{}:{}", config.proxy().host(), p));
  }

  private Future<?> bindTls(TlsTerminator tls, ProxyProtocol proxyProtocol) {
    if (tls == null) {
      return Future.succeededFuture();
    }
    return listener.bind(vertx, config.proxy().host(), config.proxy().tls().get().port(), tls, proxyProtocol)
        .onSuccess(tlsPort::set)
        .onSuccess(p -> LOG.info("proxy listening on https://{}:{}", config.proxy().host(), p));
  }

  /**
   * The proxy's own drain: {@code GET /health} answers 503 at once and responses ask clients to
   * close their connections; after {@code drainGraceMs} the listener stops accepting and in-flight
   * requests get up to {@code drainTimeoutMs} to finish. Calling it again returns the same future.
   */
  public synchronized Future<Void> drain() {
    if (drained != null) {
      return drained;
    }
    draining.set(true);
    long grace = config.proxy().drainGraceMs();
    long timeout = config.proxy().drainTimeoutMs();
    LOG.info("draining: /health answers 503; serving {} ms more, then up to {} ms for in-flight requests",
        grace, timeout);
    Promise<Void> graceOver = Promise.promise();
    vertx.setTimer(Math.max(1, grace), id -> graceOver.complete());
    drained = graceOver.future()
        .compose(v -> {
          listener.close();
          return Future.join(proxies.stream().map(p -> p.drain(timeout)).toList());
        })
        .transform(ar -> {
          int left = table.view().endpoints().values().stream().mapToInt(c -> c.active()).sum();
          LOG.info("drained: listener closed, {} requests still in flight", left);
          return Future.<Void>succeededFuture();
        });
    return drained;
  }

  /** Proxy verticles to deploy: {@code proxy.instances}, or one per event loop when 0. */
  private static int proxyInstances(FairwayConfig config) {
    return config.proxy().instances() > 0 ? config.proxy().instances() : VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE;
  }

  /**
   * Proxy verticles that serve HTTP/2 client connections: {@code proxy.h2Instances}; when 0, one
   * per core if some service speaks HTTP/2 to its backends (its streams then share backend
   * connections, and fewer loops measured faster), else all of them (HTTP/2 to HTTP/1.1 backends
   * measured faster on all).
   */
  private static int h2Instances(FairwayConfig config) {
    int cores = Math.max(1, VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE / 2);
    int all = proxyInstances(config);
    int n = config.proxy().h2Instances() > 0 ? config.proxy().h2Instances() : config.h2cBackends() ? cores : all;
    return Math.min(n, all);
  }

  public int proxyPort() {
    return proxyPort.get();
  }

  /** The TLS listener's port, or -1 without {@code proxy.tls}. */
  public int tlsPort() {
    return tlsPort.get();
  }

  public int adminPort() {
    return adminPort.get();
  }

  public SlotTable slotTable() {
    return table;
  }

  public FairwayMetrics metrics() {
    return metrics;
  }

  public Vertx vertx() {
    return vertx;
  }
}
