package dev.fairway.proxy.h2;

import dev.fairway.config.EdgeLimits;
import dev.fairway.proxy.exchange.Gateway;
import dev.fairway.proxy.upstream.UpstreamPool;
import dev.fairway.proxy.wire.FrameCodecs;
import dev.fairway.proxy.wire.FramingGuard;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/2 over cleartext by prior knowledge (RFC 9113 §3.3), first in a client connection's
 * pipeline: it reads the connection's first bytes, and if they are HTTP/2's connection preface
 * it turns the pipeline into Netty's HTTP/2 frame codec and an {@link H2Connection}, each stream
 * handled by an {@link H2Stream}. Anything else is HTTP/1.1: the handler steps aside and passes
 * the bytes on to the {@link FramingGuard}.
 *
 * <p>Example: {@code h2load http://127.0.0.1:8080/} opens with
 * {@code "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"}: the connection becomes HTTP/2 and its streams are
 * forwarded as HTTP/1.1 requests over the same backend pool. {@code curl http://127.0.0.1:8080/}
 * opens with {@code "GET / HTTP/1.1"}: the first byte differs, so nothing changes. The
 * {@code Upgrade: h2c} dance is not offered (HAProxy does not offer it either).
 */
public final class H2c extends ChannelInboundHandlerAdapter {
  /** The handler name in a pipeline. */
  public static final String NAME = "fairway-h2c";
  /**
   * The connection's receive window: 16 streams' default windows (64 KiB each), so up to 16
   * streams waiting for a slot, each holding a window's worth of its body unread, do not stop
   * the uploads of the connection's other streams.
   */
  static final int CONNECTION_WINDOW = 16 * Http2CodecUtil.DEFAULT_WINDOW_SIZE;
  /** Most flushes of an HTTP/2 connection gathered into one write. */
  private static final int FLUSHES_PER_WRITE = 64;
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private final Gateway gateway;
  private final EdgeLimits limits;
  private final long gracefulCloseMs;
  private final Handoff handoff;
  /** The first bytes while they are still a beginning of the preface. */
  private ByteBuf first;

  /** @param handoff what may take an HTTP/2 connection to another event loop before it starts here */
  public H2c(Gateway gateway, EdgeLimits limits, long gracefulCloseMs, Handoff handoff) {
    this.gateway = gateway;
    this.limits = limits;
    this.gracefulCloseMs = gracefulCloseMs;
    this.handoff = handoff;
  }

  /**
   * Takes a connection that has just opened with HTTP/2's preface elsewhere, before anything of
   * HTTP/2 is set up on it.
   */
  @FunctionalInterface
  public interface Handoff {
    /**
     * Whether it took the connection, with {@code first} (the bytes read so far, preface
     * included) and the handler of {@code ctx}; if not, the handler keeps both.
     */
    boolean takes(ChannelHandlerContext ctx, ByteBuf first);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf in)) {
      ctx.fireChannelRead(msg);
      return;
    }
    ByteBuf buf = in;
    if (first != null) {
      buf = Unpooled.wrappedBuffer(first, in);
      first = null;
    }
    switch (match(buf)) {
      case HTTP2 -> {
        if (!handoff.takes(ctx, buf)) {
          toHttp2(ctx, buf);
        }
      }
      case UNDECIDED -> first = buf;
      case HTTP1 -> {
        ctx.pipeline().remove(this);
        ctx.fireChannelRead(buf);
      }
    }
  }

  enum Verdict { HTTP1, HTTP2, UNDECIDED }

  /** Whether {@code buf} opens with the preface, does not, or is too short to tell yet. */
  public static Verdict match(ByteBuf buf) {
    int n = Math.min(buf.readableBytes(), PREFACE.length);
    for (int i = 0; i < n; i++) {
      if (buf.getByte(buf.readerIndex() + i) != PREFACE[i]) {
        return Verdict.HTTP1;
      }
    }
    return n == PREFACE.length ? Verdict.HTTP2 : Verdict.UNDECIDED;
  }

  /** Replaces the HTTP/1.1 handlers with HTTP/2's and hands them the bytes read so far, preface included. */
  private void toHttp2(ChannelHandlerContext ctx, ByteBuf buf) {
    ChannelPipeline p = ctx.pipeline();
    ClientSide conn = (ClientSide) p.get(ClientSide.NAME);
    p.remove(FramingGuard.NAME);
    p.remove(UpstreamPool.DECODER);
    p.remove(UpstreamPool.ENCODER);
    Http2Settings settings = Http2Settings.defaultSettings()
        .maxConcurrentStreams(limits.h2MaxConcurrentStreams())
        .maxHeaderListSize(limits.maxRequestLineBytes() + (long) limits.maxHeaderBytes());
    // responses of many streams, ended by many backend reads in one event-loop turn, leave in one write
    FlushConsolidationHandler flushes = new FlushConsolidationHandler(FLUSHES_PER_WRITE, true);
    p.addBefore(ctx.name(), null, flushes);
    Http2FrameCodec codec = FrameCodecs.forServer()
        .initialSettings(settings)
        .validateHeaders(true)
        .gracefulShutdownTimeoutMillis(gracefulCloseMs)
        .build();
    p.addBefore(ctx.name(), null, codec);
    H2Connection streams = new H2Connection(gateway, conn, codec);
    p.addBefore(ctx.name(), null, streams);
    conn.switchedToH2(streams);
    p.remove(this);
    // into the frame codec, which reads the preface itself (not from the head: under TLS that is the SslHandler)
    p.context(flushes).fireChannelRead(buf);
    // a stream waiting for a slot is not read, so its body holds part of the connection's window:
    // a window of many streams' keeps the others' uploads going meanwhile
    p.writeAndFlush(new DefaultHttp2WindowUpdateFrame(CONNECTION_WINDOW - Http2CodecUtil.DEFAULT_WINDOW_SIZE));
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (first != null) {
      first.release();
      first = null;
    }
  }
}
