package dev.fairway.proxy.upstream;

import dev.fairway.config.UpstreamTls;
import dev.fairway.metrics.HttpMeters;
import dev.fairway.proxy.wire.FrameCodecs;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.resolver.AddressResolverGroup;
import io.vertx.core.net.SocketAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The HTTP/2 connections ({@link H2Link}s) of one event loop to its {@code h2c://} backends, and
 * to its {@code https://} backends that chose {@code h2} by ALPN: an
 * exchange gets a stream of a connection with room for one more (the backend's
 * {@code SETTINGS_MAX_CONCURRENT_STREAMS}), else a new connection is opened. Connections without
 * streams for {@link UpstreamPool#KEEP_ALIVE_NANOS} close. Event-loop confined.
 *
 * <p>Example: ten exchanges for a gRPC backend that allows two streams per connection: the first
 * opens a connection and the next nine wait for its SETTINGS; then two get streams and the other
 * eight open a second connection, and so on: five connections carry the ten streams. Once the
 * calls end and the connections stay unused for 4 s, {@link #sweep} closes them.
 */
public final class H2Upstreams {
  /** Streams a connection is assumed to allow before its SETTINGS tell (RFC 9113 §6.5.2 advises at least 100). */
  static final int ASSUMED_STREAMS = 100;
  /** The receive window of each stream: how much of a response may wait for a slow client. */
  static final int STREAM_WINDOW = 1024 * 1024;

  private final EventLoop loop;
  private final ChannelFactory<? extends Channel> channels;
  private final AddressResolverGroup<InetSocketAddress> resolver;
  private final HttpMeters meters;
  /** The lane's HTTP/1.1 pool: it opens the TLS connections, which become links if ALPN picks {@code h2}. */
  private final UpstreamPool tlsConnections;
  private final Map<String, List<H2Link>> links = new HashMap<>();

  H2Upstreams(EventLoop loop, ChannelFactory<? extends Channel> channels,
              AddressResolverGroup<InetSocketAddress> resolver, HttpMeters meters, UpstreamPool tlsConnections) {
    this.loop = loop;
    this.channels = channels;
    this.resolver = resolver;
    this.meters = meters;
    this.tlsConnections = tlsConnections;
  }

  /** Whether there are HTTP/2 connections under {@code key} (an {@code https://} backend that chose {@code h2}). */
  public boolean has(String key) {
    return links.containsKey(key);
  }

  /**
   * Gets a stream to the backend {@code host:port} (pool key {@code key}) for one exchange: on a
   * connection with room, else on one whose SETTINGS are awaited, else on a new one opened within
   * {@code connectMs} (with a TLS {@code profile}: by the HTTP/1.1 pool, which hands it over if
   * ALPN still picks {@code h2}, else {@code done} gets an HTTP/1.1 connection); tells {@code done}
   * the stream or the failure.
   */
  public void stream(String key, String host, int port, UpstreamTls profile, int connectMs,
                     BiConsumer<Upstream, Throwable> done) {
    List<H2Link> list = links.get(key);
    if (list != null) {
      for (int i = 0, n = list.size(); i < n; i++) {
        H2Link l = list.get(i);
        if (l.usable()) {
          l.openStream(done);
          return;
        }
      }
      for (int i = 0, n = list.size(); i < n; i++) {
        H2Link l = list.get(i);
        if (l.acceptsWaiter(ASSUMED_STREAMS)) {
          l.waiters.add(done);
          return;
        }
      }
    }
    if (profile != null) {
      tlsConnections.connect(host, port, profile, connectMs, done);
    } else {
      connect(key, host, port, connectMs, done);
    }
  }

  /**
   * Takes over a TLS connection whose handshake chose {@code h2} by ALPN: its pipeline becomes an
   * HTTP/2 one after the {@code SslHandler}, and {@code done} gets the first stream once the
   * backend's SETTINGS came.
   */
  void adopt(String key, String host, int port, UpstreamTls profile, int connectMs, Channel ch,
             BiConsumer<Upstream, Throwable> done) {
    H2Link link = new H2Link(key, host, port, profile, connectMs, this);
    link.waiters.add(done);
    links.computeIfAbsent(key, k -> new ArrayList<>(2)).add(link);
    ch.pipeline().addLast(consolidation()).addLast(codec()).addLast(link);
    settingsWithin(ch, link, connectMs);
  }

  /**
   * Many streams share a connection: the flushes of the streams written in one turn of the event
   * loop become one write to the socket, not one each.
   */
  private static FlushConsolidationHandler consolidation() {
    return new FlushConsolidationHandler(FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true);
  }

  private static Http2FrameCodec codec() {
    return FrameCodecs.forClient()
        .initialSettings(Http2Settings.defaultSettings().pushEnabled(false).initialWindowSize(STREAM_WINDOW))
        .validateHeaders(true)
        .build();
  }

  private void settingsWithin(Channel ch, H2Link link, int connectMs) {
    loop.schedule(() -> {
      if (!link.ready) {
        ch.close(); // no SETTINGS in time: the waiters fail as for a connect timeout
      }
    }, Math.max(1, connectMs), TimeUnit.MILLISECONDS);
  }

  private void connect(String key, String host, int port, int connectMs, BiConsumer<Upstream, Throwable> done) {
    H2Link link = new H2Link(key, host, port, null, connectMs, this);
    link.waiters.add(done);
    links.computeIfAbsent(key, k -> new ArrayList<>(2)).add(link);
    new Bootstrap()
        .group(loop)
        .channelFactory(channels)
        .resolver(resolver)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.ALLOCATOR, UpstreamPool.ALLOCATOR)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, Math.max(1, connectMs))
        .handler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(consolidation()).addLast(codec()).addLast(link);
          }
        })
        .connect(host, port)
        .addListener(r -> {
          Channel ch = ((ChannelFuture) r).channel();
          if (!r.isSuccess()) {
            closed(link);
            BiConsumer<Upstream, Throwable> w;
            while ((w = link.waiters.poll()) != null) {
              w.accept(null, r.cause());
            }
            return;
          }
          SocketAddress remote = meters.on() ? SocketAddress.inetSocketAddress(port, host) : null;
          Object metric = meters.upstreamConnected(remote);
          ch.closeFuture().addListener(c -> meters.upstreamDisconnected(metric, remote));
          settingsWithin(ch, link, connectMs);
        });
  }

  /** A waiter of {@code full} that its SETTINGS left no room for: another connection serves it. */
  void lookElsewhere(H2Link full, BiConsumer<Upstream, Throwable> waiter) {
    List<H2Link> list = links.get(full.key);
    if (list != null) {
      for (int i = 0, n = list.size(); i < n; i++) {
        H2Link l = list.get(i);
        if (l.usable()) {
          l.openStream(waiter);
          return;
        }
        if (l != full && l.acceptsWaiter(ASSUMED_STREAMS)) {
          l.waiters.add(waiter);
          return;
        }
      }
    }
    if (full.profile != null) {
      tlsConnections.connect(full.host, full.port, full.profile, full.connectMs, waiter);
    } else {
      connect(full.key, full.host, full.port, full.connectMs, waiter);
    }
  }

  /** The backend sent GOAWAY on {@code link}: it takes no new streams. */
  void drained(H2Link link) {
    if (link.active == 0) {
      link.channel().close();
    }
  }

  /** {@code link} closed (or never connected): it is no longer offered. */
  void closed(H2Link link) {
    List<H2Link> list = links.get(link.key);
    if (list != null && list.remove(link) && list.isEmpty()) {
      links.remove(link.key);
    }
  }

  /** Closes the connections without streams for {@link UpstreamPool#KEEP_ALIVE_NANOS}, and drained ones without streams. */
  public void sweep(long nowNanos) {
    for (Iterator<List<H2Link>> it = links.values().iterator(); it.hasNext(); ) {
      List<H2Link> list = it.next();
      for (Iterator<H2Link> li = list.iterator(); li.hasNext(); ) {
        H2Link l = li.next();
        if (l.ready && l.active == 0 && (l.draining || nowNanos - l.idleSince >= UpstreamPool.KEEP_ALIVE_NANOS)) {
          li.remove();
          l.channel().close();
        }
      }
      if (list.isEmpty()) {
        it.remove();
      }
    }
  }

  /** Closes every connection without streams. */
  public void closeIdle() {
    sweep(Long.MAX_VALUE / 2 + System.nanoTime());
  }
}
