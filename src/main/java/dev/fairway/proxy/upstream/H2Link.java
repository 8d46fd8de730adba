package dev.fairway.proxy.upstream;

import dev.fairway.config.UpstreamTls;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.function.BiConsumer;

/**
 * One HTTP/2 connection to a backend, last in its pipeline (an {@code SslHandler} for an
 * {@code https://} backend, Netty's frame codec and multiplexer, this): it learns from the
 * backend's SETTINGS how many streams it may carry, opens streams ({@link Upstream}s) for
 * exchanges, and stops taking new ones after the backend's GOAWAY (draining: the streams under way
 * finish).
 *
 * <p>Example: a gRPC server with {@code maxConcurrentCallsPerConnection(2)} sends
 * {@code MAX_CONCURRENT_STREAMS 2}: the link is {@link #ready} with {@link #maxStreams} 2; two
 * exchanges get a stream each, a third finds it {@link #full} and its pool opens another link.
 * Requests that came while the SETTINGS were still on their way wait in {@link #waiters} and are
 * given streams as the SETTINGS allow; the rest look for another link.
 */
final class H2Link extends ChannelInboundHandlerAdapter {
  /**
   * The connection's receive window above the default 64 KiB: many streams share it, and a small
   * one would throttle them all on a round trip per window.
   */
  static final int CONNECTION_WINDOW = 16 * 1024 * 1024;

  final String key;
  final String host;
  final int port;
  /** The TLS profile of an {@code https://} backend's link; {@code null}: {@code h2c://}. */
  final UpstreamTls profile;
  /** How long connecting, and then the backend's first SETTINGS, may take. */
  final int connectMs;
  private final H2Upstreams pool;
  private Channel channel;
  /** Opens the streams; one for the connection, so each stream does not look up the multiplexer again. */
  private Http2StreamChannelBootstrap streams;
  /** The backend's SETTINGS_MAX_CONCURRENT_STREAMS ({@link Long#MAX_VALUE} if it gave none). */
  long maxStreams = Long.MAX_VALUE;
  /** Streams open now. */
  int active;
  /** The backend's first SETTINGS came. */
  boolean ready;
  /** The backend sent GOAWAY: no new streams. */
  boolean draining;
  /** Since when no stream is open ({@code System.nanoTime()}). */
  long idleSince;
  /** Exchanges waiting for the first SETTINGS. */
  final ArrayDeque<BiConsumer<Upstream, Throwable>> waiters = new ArrayDeque<>(4);

  H2Link(String key, String host, int port, UpstreamTls profile, int connectMs, H2Upstreams pool) {
    this.key = key;
    this.profile = profile;
    this.host = host;
    this.port = port;
    this.connectMs = connectMs;
    this.pool = pool;
  }

  Channel channel() {
    return channel;
  }

  /** Whether a new stream may be opened now. */
  boolean usable() {
    return ready && !draining && active < maxStreams && channel.isActive();
  }

  /** Whether it takes more exchanges while its SETTINGS are still on their way. */
  boolean acceptsWaiter(int assumedStreams) {
    return !ready && !draining && waiters.size() < assumedStreams;
  }

  /**
   * Opens a stream for an exchange; tells {@code done} the stream or why not. The stream's end
   * (either way, or a reset) gives it back to the link.
   */
  void openStream(BiConsumer<Upstream, Throwable> done) {
    active++;
    streams.open().addListener(f -> {
      if (f.isSuccess()) {
        Channel ch = (Channel) f.getNow();
        ch.closeFuture().addListener(c -> streamClosed());
        done.accept(ch.pipeline().get(Upstream.class), null);
      } else {
        streamClosed();
        done.accept(null, f.cause());
      }
    });
  }

  private void streamClosed() {
    if (--active == 0) {
      idleSince = System.nanoTime();
      if (draining) {
        channel.close();
      }
    }
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    channel = ctx.channel();
    streams = new Http2StreamChannelBootstrap(channel).handler(new StreamPipeline(key));
    if (channel.isActive()) { // a TLS connection taken over after ALPN: active already
      ctx.writeAndFlush(new DefaultHttp2WindowUpdateFrame(CONNECTION_WINDOW));
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ctx.writeAndFlush(new DefaultHttp2WindowUpdateFrame(CONNECTION_WINDOW));
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof Http2SettingsFrame s) {
      Long max = s.settings().maxConcurrentStreams();
      if (max != null) {
        maxStreams = max;
      }
      if (!ready) {
        ready = true;
        idleSince = System.nanoTime();
        serveWaiters();
      }
    } else if (msg instanceof Http2GoAwayFrame) {
      draining = true;
      pool.drained(this);
    }
    ReferenceCountUtil.release(msg);
  }

  /** The SETTINGS came: the waiters get streams as far as they allow; the rest look elsewhere. */
  private void serveWaiters() {
    BiConsumer<Upstream, Throwable> w;
    while ((w = waiters.poll()) != null) {
      if (usable()) {
        openStream(w);
      } else {
        pool.lookElsewhere(this, w);
      }
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    draining = true;
    pool.closed(this);
    BiConsumer<Upstream, Throwable> w;
    while ((w = waiters.poll()) != null) {
      w.accept(null, new IOException("the backend closed the HTTP/2 connection before its SETTINGS"));
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }

  /** A new stream's pipeline: Netty's frame-to-HttpObject codec, {@link H2ResponseCheck}, and its {@link Upstream}. */
  @ChannelHandler.Sharable
  private static final class StreamPipeline extends ChannelInitializer<Http2StreamChannel> {
    private final String key;

    StreamPipeline(String key) {
      this.key = key;
    }

    @Override
    protected void initChannel(Http2StreamChannel ch) {
      ch.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(false, false)).addLast(new H2ResponseCheck())
          .addLast(new Upstream(key));
    }
  }
}
