package dev.fairway.bench;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.impl.cpu.CpuCoreSensor;
import io.vertx.core.net.SocketAddress;
import io.vertx.httpproxy.HttpProxy;
import io.vertx.httpproxy.OriginRequestProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Benchmark baseline, not part of Fairway: the plain {@code io.vertx:vertx-http-proxy} reverse
 * proxy, round robin over the given backends through its origin selector, one verticle per event
 * loop (as Fairway's {@code proxy.instances 0}), with client pool settings close to Fairway's.
 *
 * <p>Example: {@code VertxHttpProxyBaseline 127.0.0.1 30082 127.0.0.1:30001 127.0.0.1:30002}
 * listens on 127.0.0.1:30082 and sends requests to 30001, 30002, 30001, ... (one cursor for the
 * whole process, as Fairway's round robin).
 *
 * <p>Run by {@code bench/throughput-all.sh}; the optional system property
 * {@code baseline.instances} overrides the number of verticles.
 */
public final class VertxHttpProxyBaseline extends VerticleBase {
  private static final AtomicLong CURSOR = new AtomicLong();

  private final String host;
  private final int port;
  private final List<SocketAddress> origins;

  private VertxHttpProxyBaseline(String host, int port, List<SocketAddress> origins) {
    this.host = host;
    this.port = port;
    this.origins = origins;
  }

  @Override
  public Future<?> start() {
    HttpClient client = vertx.createHttpClient(
        new HttpClientOptions().setKeepAlive(true).setKeepAliveTimeout(60).setTcpNoDelay(true)
            .setMaxHeaderSize(64 * 1024).setDecompressionSupported(false),
        new PoolOptions().setHttp1MaxSize(4096).setMaxWaitQueueSize(-1));
    int n = origins.size();
    HttpProxy proxy = HttpProxy.reverseProxy(client).origin(OriginRequestProvider.selector(
        ctx -> Future.succeededFuture(origins.get((int) Math.floorMod(CURSOR.getAndIncrement(), (long) n)))));
    return vertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(port).setTcpNoDelay(true))
        .requestHandler(proxy)
        .listen();
  }

  public static void main(String[] args) {
    if (args.length < 3) {
      System.err.println("usage: VertxHttpProxyBaseline HOST PORT BACKEND_HOST:PORT...");
      System.exit(2);
    }
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    List<SocketAddress> origins = new ArrayList<>();
    for (int i = 2; i < args.length; i++) {
      String[] hp = args[i].split(":");
      origins.add(SocketAddress.inetSocketAddress(Integer.parseInt(hp[1]), hp[0]));
    }
    int loops = VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE;
    int instances = Integer.getInteger("baseline.instances", loops);
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true)); // epoll, as Fairway
    vertx.deployVerticle(() -> new VertxHttpProxyBaseline(host, port, origins),
            new DeploymentOptions().setInstances(instances))
        .onSuccess(id -> System.out.println("vertx-http-proxy baseline on " + host + ":" + port
            + " instances " + instances + " (event loops " + loops + ", cores "
            + CpuCoreSensor.availableProcessors() + ") -> " + origins))
        .onFailure(e -> {
          e.printStackTrace();
          System.exit(1);
        });
  }
}
