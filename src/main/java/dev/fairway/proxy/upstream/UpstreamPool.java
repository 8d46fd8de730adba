package dev.fairway.proxy.upstream;

import dev.fairway.config.UpstreamTls;
import dev.fairway.metrics.HttpMeters;
import dev.fairway.proxy.wire.FramingGuard;
import dev.fairway.proxy.wire.HeadAwareCodecs;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslHandler;
import io.netty.resolver.AddressResolverGroup;
import io.vertx.core.net.SocketAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import javax.net.ssl.SSLException;

/**
 * The keep-alive connections of one event loop to its backends: idle ones by backend
 * ({@link IdleStack}: newest first, but one idle for {@link #REFRESH_NANOS} before it expires),
 * each closed after {@link #KEEP_ALIVE_NANOS} unused, and those a {@link #WINDOW_NANOS} window
 * never needed at its end. Event-loop confined.
 *
 * <p>Example: the first request to b1 connects ({@link #connect}); when its response is over the
 * connection is {@link #offer offered} back, and the next request to b1 within 4 s takes it
 * ({@link #poll}) instead of connecting again. Connections to an {@code https://} backend begin
 * with an {@link SslHandler} and are pooled apart from cleartext ones ({@link #key}); one whose
 * backend picks {@code h2} by ALPN is handed to the lane's {@link H2Upstreams} instead.
 */
public final class UpstreamPool {
  /**
   * Pooled backend connections idle this long are closed: below the 5 s keep-alive timeout
   * common in backends (Node.js), so a backend rarely closes a connection Fairway is about to
   * reuse; the rare race is retried on a fresh connection (by the exchange).
   */
  static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(4);
  /**
   * An idle connection this old is reused before newer ones, so that a load whose demand wanders
   * keeps its connections instead of closing some at each trough and opening them again at the
   * next peak (each such connection's objects, old by then, die in the old generation).
   */
  static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(2);
  /** Every window, the idle connections no moment of it needed are closed: the pool shrinks when the demand does. */
  static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(30);
  /**
   * Buffers of client and backend connections: Netty's pooled allocator, which serves this path
   * better than Netty 4.2's default adaptive one (compared in docs/benchmarks.md).
   */
  public static final PooledByteBufAllocator ALLOCATOR = PooledByteBufAllocator.DEFAULT;
  /** Pipeline names of a connection's HTTP encoder and decoder (client and backend connections alike). */
  public static final String ENCODER = "http-encoder";
  public static final String DECODER = "http-decoder";
  /** Pipeline name of a backend connection's {@link SslHandler}, first in its pipeline (https backends). */
  public static final String TLS = "tls";

  private final EventLoop loop;
  private final ChannelFactory<? extends Channel> channels;
  private final AddressResolverGroup<InetSocketAddress> resolver;
  private final HttpMeters meters;
  private final UpstreamTlsContexts tls;
  private final Map<String, IdleStack<BackendConnection>> idle = new HashMap<>();
  private final H2Upstreams h2;

  /** @param tls the process's TLS contexts for {@code https://} backends */
  public UpstreamPool(EventLoop loop, ChannelFactory<? extends Channel> channels,
               AddressResolverGroup<InetSocketAddress> resolver, HttpMeters meters, UpstreamTlsContexts tls) {
    this.meters = meters;
    this.tls = tls;
    this.loop = loop;
    this.channels = channels;
    this.resolver = resolver;
    this.h2 = new H2Upstreams(loop, channels, resolver, meters, this);
  }

  /** The HTTP/2 connections of this event loop ({@code h2c://} backends). */
  public H2Upstreams h2() {
    return h2;
  }

  /**
   * The key under which connections to {@code host:port} ({@code address}) with the TLS
   * {@code profile} ({@code null}: cleartext) are pooled; see {@link UpstreamTlsContexts#poolKey}.
   */
  public String key(String address, UpstreamTls profile) {
    return tls.poolKey(address, profile);
  }

  /**
   * An idle connection under {@code key} ({@link #key}) that can carry a request ({@link IdleStack#poll}), or {@code null}.
   *
   * @param nowNanos {@code System.nanoTime()}: which idle connections are due for reuse
   */
  public Upstream poll(String key, long nowNanos) {
    IdleStack<BackendConnection> q = idle.get(key);
    if (q == null) {
      return null;
    }
    BackendConnection u;
    while ((u = q.poll(nowNanos)) != null) {
      if (u.reusable()) {
        u.reused = true;
        return u;
      }
      u.socket().close();
    }
    return null;
  }

  /**
   * Takes back a connection whose exchange is over and that may carry another request.
   *
   * @param nowNanos {@code System.nanoTime()}: from when it is idle
   */
  public void offer(Upstream upstream, long nowNanos) {
    BackendConnection u = (BackendConnection) upstream; // streams are never poolable
    u.detach();
    IdleStack<BackendConnection> q = idle.get(u.key);
    if (q == null) {
      q = new IdleStack<>(REFRESH_NANOS, KEEP_ALIVE_NANOS, WINDOW_NANOS, nowNanos);
      idle.put(u.key, q);
    }
    q.offer(u, nowNanos);
  }

  /**
   * Connects to {@code host:port} within {@code connectMs}, then, with a TLS {@code profile} (null:
   * cleartext), completes the TLS handshake within {@code connectMs} more; tells {@code done} the
   * connection or the failure (an {@link javax.net.ssl.SSLException} for a TLS one).
   */
  public void connect(String host, int port, UpstreamTls profile, int connectMs, BiConsumer<Upstream, Throwable> done) {
    if (profile != null && !tls.ready(profile)) { // the profile's first connection: its context is made first
      tls.prepare(profile, loop, failure -> {
        if (failure == null) {
          connect(host, port, profile, connectMs, done);
        } else {
          done.accept(null, failure);
        }
      });
      return;
    }
    SslHandler ssl;
    try {
      ssl = profile == null ? null : tls.handler(profile, ALLOCATOR, host, port, Math.max(1, connectMs));
    } catch (SSLException e) {
      done.accept(null, e);
      return;
    }
    BackendConnection handler = new BackendConnection(key(host + ":" + port, profile), FramingGuard.forResponses(),
        HeadAwareCodecs.responseDecoder());
    ChannelFuture f = new Bootstrap()
        .group(loop)
        .channelFactory(channels)
        .resolver(resolver)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.ALLOCATOR, ALLOCATOR)
        .option(ChannelOption.RCVBUF_ALLOCATOR, handler.reads)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, Math.max(1, connectMs))
        .handler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            if (ssl != null) {
              ch.pipeline().addLast(TLS, ssl);
            }
            ch.pipeline().addLast(FramingGuard.NAME, handler.guard)
                .addLast(ENCODER, new HttpRequestEncoder())
                .addLast(DECODER, handler.decoder)
                .addLast(handler);
          }
        })
        .connect(host, port);
    f.addListener(r -> {
      if (!r.isSuccess()) {
        done.accept(null, r.cause());
      } else if (ssl == null) {
        connected(f.channel(), host, port, handler, done);
      } else {
        ssl.handshakeFuture().addListener(h -> {
          if (h.isSuccess() && ApplicationProtocolNames.HTTP_2.equals(ssl.applicationProtocol())) {
            connected(f.channel(), host, port, null, done);
            f.channel().pipeline().remove(handler);
            f.channel().pipeline().remove(ENCODER);
            f.channel().pipeline().remove(DECODER);
            f.channel().pipeline().remove(FramingGuard.NAME);
            h2.adopt(handler.key, host, port, profile, connectMs, f.channel(), done);
          } else if (h.isSuccess()) {
            connected(f.channel(), host, port, handler, done);
          } else {
            f.channel().close();
            done.accept(null, h.cause());
          }
        });
      }
    });
  }

  private void connected(Channel ch, String host, int port, BackendConnection handler, BiConsumer<Upstream, Throwable> done) {
    SocketAddress remote = meters.on() ? SocketAddress.inetSocketAddress(port, host) : null;
    Object metric = meters.upstreamConnected(remote);
    ch.closeFuture().addListener(c -> meters.upstreamDisconnected(metric, remote));
    if (handler != null) {
      done.accept(handler, null);
    }
  }

  /** Closes the connections (and HTTP/2 connections without streams) idle for longer than {@link #KEEP_ALIVE_NANOS}. */
  public void sweep(long nowNanos) {
    h2.sweep(nowNanos);
    for (Iterator<IdleStack<BackendConnection>> it = idle.values().iterator(); it.hasNext(); ) {
      IdleStack<BackendConnection> q = it.next();
      q.sweep(nowNanos, u -> !u.socket().isActive(), u -> u.socket().close());
      if (q.isEmpty()) {
        it.remove();
      }
    }
  }

  /** Closes every idle connection. */
  public void closeIdle() {
    h2.closeIdle();
    idle.values().forEach(q -> q.clear(u -> u.socket().close()));
    idle.clear();
  }
}
