package dev.fairway.testing;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real backend process that shuts down the way production servers should (seed 002): on
 * SIGTERM it asks its proxy to treat it as a lame duck, waits a moment, stops accepting
 * connections, answers whatever still arrives on open keep-alive connections with
 * {@code Connection: close}, finishes its in-flight requests and exits. Started, it clears its
 * lame duck so the proxy takes it back once a health check passes.
 *
 * <p>Example: {@code java -cp <test classpath> dev.fairway.testing.LameDuckBackend --port 19101
 * --id b1 --admin http://127.0.0.1:9090 --token T --work-ms 5} serves {@code GET /} with
 * {@code b1} after 5 ms and {@code GET /health} with {@code ok}; {@code kill -TERM} logs
 * {@code b1: lame duck requested (200)}, {@code b1: listener closed}, {@code b1: drained} and exits.
 * Without {@code --admin} it skips both API calls (a proxy that only health-checks).
 *
 * <p>Written on Netty (which Vert.x runs on) rather than the Vert.x {@code HttpServer}, because
 * Vert.x's {@code close()} and {@code shutdown()} close idle keep-alive connections together with
 * the listener; a real server that unbinds first and keeps answering open connections (the case
 * a proxy's connection pool must survive) needs the listener and the connections apart.
 *
 * <p>Prints {@code READY <port>} on stdout once it listens and has cleared its lame duck.
 */
public final class LameDuckBackend {
  private final int port;
  private final String id;
  private final String admin;
  private final String token;
  private final long workMs;
  private final long graceMs;
  private final long lingerMs;
  private final long drainTimeoutMs;
  private final int warmupRequests;
  private final long idleCloseMs;
  private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final AtomicInteger inFlight = new AtomicInteger();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private volatile boolean closing;
  private Channel listener;

  private LameDuckBackend(Map<String, String> args) {
    this.port = Integer.parseInt(required(args, "port"));
    this.id = required(args, "id");
    this.admin = args.get("admin");
    this.token = args.getOrDefault("token", "");
    this.workMs = Long.parseLong(args.getOrDefault("work-ms", "5"));
    this.graceMs = Long.parseLong(args.getOrDefault("grace-ms", "200"));
    this.lingerMs = Long.parseLong(args.getOrDefault("linger-ms", "300"));
    this.drainTimeoutMs = Long.parseLong(args.getOrDefault("drain-timeout-ms", "10000"));
    this.warmupRequests = Integer.parseInt(args.getOrDefault("warmup-requests", "400"));
    this.idleCloseMs = Long.parseLong(args.getOrDefault("idle-close-ms", "0"));
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = new HashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) {
      if (!argv[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --name value pairs, got " + argv[i]);
      }
      args.put(argv[i].substring(2), argv[i + 1]);
    }
    LameDuckBackend b = new LameDuckBackend(args);
    try {
      b.start();
    } catch (Exception e) {
      System.out.println(b.id + ": cannot start: " + e);
      System.exit(1);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(b::shutdown, "lame-duck-shutdown"));
    System.out.println("READY " + b.port);
    System.out.flush();
  }

  private static String required(Map<String, String> args, String name) {
    String v = args.get(name);
    if (v == null) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return v;
  }

  private void start() throws Exception {
    listener = new ServerBootstrap()
        .group(boss, workers)
        .channel(NioServerSocketChannel.class)
        .option(ChannelOption.SO_REUSEADDR, true)
        .option(ChannelOption.SO_BACKLOG, 1024)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            connections.add(ch);
            if (idleCloseMs > 0) {
              ch.pipeline().addLast(new IdleStateHandler(0, 0, idleCloseMs, TimeUnit.MILLISECONDS));
            }
            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20), new Handler());
          }
        })
        .bind("127.0.0.1", port).sync().channel();
    try {
      warmUp();
    } catch (Exception e) {
      log("warm-up incomplete: " + e);
    }
    if (admin != null) {
      lameDuck("DELETE");
    }
  }

  /**
   * Sends {@code warmupRequests} requests to itself before declaring itself ready, so that the
   * first requests a proxy sends do not pay for class loading and interpreted code (seed 002: a
   * task may listen while it initializes and only then ask for traffic). They skip the work delay.
   */
  private void warmUp() throws Exception {
    if (warmupRequests <= 0) {
      return;
    }
    HttpClient self = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/warmup")).build();
    List<CompletableFuture<HttpResponse<Void>>> batch = new ArrayList<>();
    for (int i = 0; i < warmupRequests; i++) {
      batch.add(self.sendAsync(req, HttpResponse.BodyHandlers.discarding()));
      if (batch.size() == 8) {
        CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        batch.clear();
      }
    }
    CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
  }

  /** The SIGTERM handler (a JVM shutdown hook). */
  private void shutdown() {
    long start = System.nanoTime();
    try {
      if (admin != null) {
        lameDuck("POST");
      }
      Thread.sleep(graceMs);
      closing = true;
      listener.close().sync();
      log("listener closed, " + inFlight.get() + " in flight, " + connections.size() + " connections open");
      // Requests still arriving on open keep-alive connections are answered with Connection: close.
      Thread.sleep(lingerMs);
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(drainTimeoutMs);
      while (inFlight.get() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      log("drained (" + inFlight.get() + " left) in " + (System.nanoTime() - start) / 1_000_000 + " ms; closing "
          + connections.size() + " idle connections");
      connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
      boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** {@code POST} or {@code DELETE /api/backends/{id}/lame-duck}; tries a few times, never fails. */
  private void lameDuck(String method) {
    HttpRequest req = HttpRequest.newBuilder(URI.create(admin + "/api/backends/" + id + "/lame-duck"))
        .method(method, HttpRequest.BodyPublishers.noBody())
        .header("Authorization", "Bearer " + token)
        .timeout(Duration.ofSeconds(2))
        .build();
    for (int attempt = 1; attempt <= 5; attempt++) {
      try {
        int status = http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
        log("lame duck " + (method.equals("POST") ? "requested" : "cleared") + " (" + status + ")");
        return;
      } catch (Exception e) {
        log("lame duck " + method + " attempt " + attempt + " failed: " + e);
        try {
          Thread.sleep(100);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void log(String line) {
    System.out.println(id + ": " + line);
    System.out.flush();
  }

  private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private boolean busy;

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      boolean keepAlive = HttpUtil.isKeepAlive(req);
      inFlight.incrementAndGet();
      busy = true;
      String path = req.uri();
      if (path.startsWith("/health") || path.startsWith("/warmup")) {
        respond(ctx, keepAlive, "ok\n");
      } else {
        ctx.executor().schedule(() -> respond(ctx, keepAlive, id + "\n"), workMs, TimeUnit.MILLISECONDS);
      }
    }

    private void respond(ChannelHandlerContext ctx, boolean keepAlive, String body) {
      FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
          Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
      resp.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
      resp.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, resp.content().readableBytes());
      boolean close = !keepAlive || closing;
      if (close) {
        resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      }
      busy = false;
      ctx.writeAndFlush(resp).addListener(f -> {
        inFlight.decrementAndGet();
        if (close) {
          ctx.channel().close();
        }
      });
    }

    /** {@code --idle-close-ms}: a keep-alive timeout, closing connections idle that long (stale pooled connections). */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof IdleStateEvent && !busy) {
        ctx.close();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
