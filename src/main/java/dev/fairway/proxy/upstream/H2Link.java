package dev.fairway.proxy.upstream;

import dev.fairway.config.UpstreamTls;
import dev.fairway.proxy.wire.StreamWindows;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2ChannelDuplexHandler;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2FrameStreamEvent;
import io.netty.handler.codec.http2.Http2FrameStreamException;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * One HTTP/2 connection to a backend, last in its pipeline (an {@code SslHandler} for an
 * {@code https://} backend, Netty's frame codec, this): it learns from the backend's SETTINGS how
 * many streams it may carry, opens streams ({@link BackendStream}s) for exchanges, hands each
 * stream its frames and events (no channel per stream), and stops taking new streams after the
 * backend's GOAWAY (draining: the streams under way finish).
 *
 * <p>Example: a gRPC server with {@code maxConcurrentCallsPerConnection(2)} sends
 * {@code MAX_CONCURRENT_STREAMS 2}: the link is {@link #ready} with {@link #maxStreams} 2; two
 * exchanges get a stream each, a third finds it {@link #full} and its pool opens another link.
 * Requests that came while the SETTINGS were still on their way wait in {@link #waiters} and are
 * given streams as the SETTINGS allow; the rest look for another link.
 */
final class H2Link extends Http2ChannelDuplexHandler {
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
  private ChannelHandlerContext ctx;
  private Http2FrameCodec codec;
  /** The open streams by id (a stream is here once its HEADERS went out). */
  private final IntObjectMap<BackendStream> streams = new IntObjectHashMap<>();
  /** The streams that were given frames in the read under way. */
  private final List<BackendStream> read = new ArrayList<>();
  /** Window updates were written since the last flush. */
  private boolean updatesPending;
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

  /** Gives an exchange a new stream (its id comes when its HEADERS go out); its end gives it back to the link. */
  void openStream(BiConsumer<Upstream, Throwable> done) {
    active++;
    done.accept(new BackendStream(this, newStream()), null);
  }

  /** The stream went out with its HEADERS: from now on it hears its frames. */
  void opened(BackendStream s, int id) {
    streams.put(id, s);
  }

  /** A stream is over (ended, reset, refused or never sent): its room is the link's again. */
  void streamClosed(int id) {
    if (id > 0) {
      streams.remove(id);
    }
    if (--active == 0) {
      idleSince = System.nanoTime();
      if (draining) {
        channel.close();
      }
    }
  }

  /** The codec's own state of stream {@code id} (its windows and state), or {@code null} if it has none. */
  Http2Stream codecStream(int id) {
    return codec.connection().stream(id);
  }

  /** Whether the backend's window for {@code s} (and the connection's buffer) can take more. */
  boolean writable(Http2Stream s) {
    return s != null && codec.connection().remote().flowController().isWritable(s);
  }

  /**
   * Whether stream {@code id} is above the last one the backend's GOAWAY said it would process:
   * the backend never saw it.
   */
  boolean aboveGoAway(int id) {
    Http2Connection c = codec.connection();
    return c.goAwayReceived() && id > c.local().lastStreamKnownByPeer();
  }

  /** Whether the connection is TLS (its requests say {@code :scheme https}). */
  boolean secure() {
    return profile != null;
  }

  /** Whether the connection is still open. */
  boolean active() {
    return channel.isActive();
  }

  /** Writes a frame of a stream, unflushed. */
  ChannelFuture write(Object frame) {
    return ctx.write(frame);
  }

  void flush() {
    updatesPending = false;
    ctx.flush();
  }

  /** Gives the backend {@code bytes} more of stream {@code s}'s window: they were read ({@link StreamWindows}). */
  void consumed(Http2Stream s, int bytes) {
    updatesPending |= StreamWindows.giveBack(codec, ctx, s, bytes);
  }

  /** Runs {@code task} after what the event loop is doing now (a stream's end is told to its exchange so). */
  void later(Runnable task) {
    channel.eventLoop().execute(task);
  }

  @Override
  protected void handlerAdded0(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    channel = ctx.channel();
    codec = ctx.pipeline().get(Http2FrameCodec.class);
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
    if (msg instanceof Http2StreamFrame f && f.stream() != null) {
      BackendStream s = streams.get(f.stream().id());
      if (s == null) { // a stream already closed on this side: its bytes still count for the connection
        if (msg instanceof Http2DataFrame data) {
          consumed(codecStream(f.stream().id()), data.initialFlowControlledBytes());
        }
        ReferenceCountUtil.release(msg);
        return;
      }
      if (!s.inRead) {
        s.inRead = true;
        read.add(s);
      }
      s.onFrame(msg);
      return;
    }
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
  public void channelReadComplete(ChannelHandlerContext ctx) {
    for (int i = 0; i < read.size(); i++) {
      BackendStream s = read.get(i);
      s.inRead = false;
      s.readComplete();
    }
    read.clear();
    if (updatesPending) {
      flush();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (!(evt instanceof Http2FrameStreamEvent e)) {
      ReferenceCountUtil.release(evt);
      return;
    }
    BackendStream s = streams.get(e.stream().id());
    if (s == null) {
      return;
    }
    if (e.type() == Http2FrameStreamEvent.Type.Writability) {
      s.writabilityChanged();
    } else if (e.stream().state() == Http2Stream.State.CLOSED) {
      s.closed();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    draining = true;
    pool.closed(this);
    for (BackendStream s : new ArrayList<>(streams.values())) {
      s.closed();
    }
    BiConsumer<Upstream, Throwable> w;
    while ((w = waiters.poll()) != null) {
      w.accept(null, new IOException("the backend closed the HTTP/2 connection before its SETTINGS"));
    }
    ctx.fireChannelInactive();
  }

  /** A stream's error (the codec has reset the stream) goes to its stream; anything else closes the connection. */
  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof Http2FrameStreamException e) {
      BackendStream s = streams.get(e.stream().id());
      if (s != null) {
        s.failed(e.getCause() != null ? e.getCause() : e);
      }
      return;
    }
    ctx.close();
  }
}
