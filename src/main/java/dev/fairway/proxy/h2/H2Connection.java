package dev.fairway.proxy.h2;

import dev.fairway.proxy.exchange.Gateway;
import dev.fairway.proxy.wire.StreamWindows;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2FrameStreamEvent;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.util.ArrayList;
import java.util.List;

/**
 * An HTTP/2 client connection's streams, after Netty's frame codec: hands each stream's frames to
 * its {@link H2Stream} (made when its first HEADERS frame comes), and tells it when its
 * flow-control window opens and when it closes. No channel per stream: a stream writes its frames
 * here, on the connection.
 *
 * <p>Example: HEADERS on streams 1, 3 and 5 in one read make three {@code H2Stream}s and three
 * exchanges; at the end of the read each stream's exchange flushes what it wrote to its backend.
 * When stream 3's response has gone out and the client's side had ended, the codec closes stream
 * 3 and it is forgotten here.
 */
public final class H2Connection extends ChannelInboundHandlerAdapter {
  private final Gateway gateway;
  private final ClientSide connection;
  private final Http2FrameCodec codec;
  private final IntObjectMap<H2Stream> streams = new IntObjectHashMap<>();
  /** The streams that were given frames in the read under way. */
  private final List<H2Stream> read = new ArrayList<>();
  private ChannelHandlerContext ctx;
  /** DATA bytes the streams wrote since the last {@link #flush}: not in the connection's buffer yet. */
  private long queued;

  H2Connection(Gateway gateway, ClientSide connection, Http2FrameCodec codec) {
    this.gateway = gateway;
    this.connection = connection;
    this.codec = codec;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  /** Where a stream's frames are written: through the codec. */
  ChannelHandlerContext ctx() {
    return ctx;
  }

  /** The codec's own state of stream {@code id} (its windows), or {@code null} if it has none. */
  Http2Stream codecStream(int id) {
    return codec.connection().stream(id);
  }

  /** Whether the client's flow-control window of {@code s}, and the connection, can take more. */
  boolean writable(Http2Stream s) {
    return s != null && codec.connection().remote().flowController().isWritable(s);
  }

  /**
   * How many bytes {@code stream} can send now without waiting: the least of its window, the
   * connection's window and its share of what is left of the connection's buffer once the DATA
   * written since the last flush is in it (shared evenly by the open streams); 0 when it is not
   * writable.
   */
  int room(Http2Stream s) {
    Http2Connection c = codec.connection();
    Http2RemoteFlowController flow = c.remote().flowController();
    if (s == null || !flow.isWritable(s)) {
      return 0;
    }
    long share = (ctx.channel().bytesBeforeUnwritable() - queued) / Math.max(1, c.numActiveStreams());
    return (int) Math.max(0, Math.min(share, Math.min(flow.windowSize(s), flow.windowSize(c.connectionStream()))));
  }

  /** Writes a stream's frame, unflushed; a DATA frame's bytes count as queued until the next {@link #flush}. */
  ChannelFuture write(Object frame) {
    if (frame instanceof Http2DataFrame data) {
      queued += data.content().readableBytes();
    }
    return ctx.write(frame);
  }

  /** Sends what the streams wrote. */
  void flush() {
    queued = 0;
    ctx.flush();
  }

  /** Gives the client {@code bytes} more of stream {@code s}'s window: they were read ({@link StreamWindows}). */
  void consumed(Http2Stream s, int bytes) {
    StreamWindows.giveBack(codec, ctx, s, bytes);
  }

  /** Whether no stream is open. */
  public boolean idle() {
    return streams.isEmpty();
  }

  /**
   * An idle-timeout tick ({@link ClientSide}): a stream quiet for {@code ticks} ticks in a
   * row is reset ({@code CANCEL}), which ends its exchange and frees its slot and backend.
   */
  public void idleTick(int ticks) {
    List<H2Stream> quiet = null;
    for (H2Stream s : streams.values()) {
      if (s.quietFor(ticks)) {
        if (quiet == null) {
          quiet = new ArrayList<>();
        }
        quiet.add(s);
      }
    }
    if (quiet != null) {
      quiet.forEach(H2Stream::reset); // after the loop: a reset closes the stream, which leaves the map
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof Http2HeadersFrame || msg instanceof Http2DataFrame)) {
      ReferenceCountUtil.release(msg); // settings, pings, resets, window updates: the codec acted on them
      return;
    }
    Http2FrameStream stream = ((Http2StreamFrame) msg).stream();
    H2Stream s = streams.get(stream.id());
    if (s == null) {
      if (msg instanceof Http2DataFrame data) { // a stream already answered and forgotten
        consumed(codecStream(stream.id()), data.initialFlowControlledBytes());
        data.release();
        return;
      }
      s = new H2Stream(gateway, connection, this, stream);
      streams.put(stream.id(), s);
      connection.touch();
    }
    if (!s.inRead) {
      s.inRead = true;
      read.add(s);
    }
    s.onFrame(msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    for (int i = 0; i < read.size(); i++) {
      H2Stream s = read.get(i);
      s.inRead = false;
      s.readComplete();
    }
    read.clear();
    ctx.fireChannelReadComplete();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (!(evt instanceof Http2FrameStreamEvent e)) {
      ctx.fireUserEventTriggered(evt);
      return;
    }
    int id = e.stream().id();
    if (e.type() == Http2FrameStreamEvent.Type.Writability) {
      H2Stream s = streams.get(id);
      if (s != null) {
        s.writabilityChanged();
      }
    } else if (e.stream().state() == Http2Stream.State.CLOSED) {
      H2Stream s = streams.remove(id);
      if (s != null) {
        connection.touch();
        s.closed();
      }
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    for (H2Stream s : new ArrayList<>(streams.values())) {
      s.closed();
    }
    streams.clear();
    ctx.fireChannelInactive();
  }
}
