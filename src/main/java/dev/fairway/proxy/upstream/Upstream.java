package dev.fairway.proxy.upstream;

import dev.fairway.proxy.wire.FramingGuard;
import dev.fairway.proxy.wire.HeadAwareCodecs;
import dev.fairway.proxy.wire.RawRequest;
import dev.fairway.proxy.wire.RawResponse;
import dev.fairway.proxy.wire.Rejection;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;

/**
 * One connection to a backend, last in its pipeline (an {@code SslHandler} for an {@code https://}
 * backend, {@link FramingGuard}, Netty's request encoder and response decoder, this): relays what
 * the backend sends to the {@link UpstreamUser} it serves now (an exchange), and goes back to its
 * {@link UpstreamPool} between exchanges. Or one HTTP/2 stream to a backend ({@link #multiplexed}):
 * a child channel of an {@link H2Link}, last after Netty's frame-to-HttpObject codec; it carries
 * one exchange and is never pooled (its end gives the stream back to its connection).
 *
 * <p>Example: an exchange for b1 takes an idle connection to b1 from the pool, writes its request,
 * and gets the response head and body parts from {@link #channelRead}; once the last part has
 * been relayed and the backend kept the connection open, the connection is idle again.
 */
public final class Upstream extends ChannelInboundHandlerAdapter {
  /** The pool key: the backend's {@code host:port}, and its TLS profile if any ({@link UpstreamPool#key}). */
  final String key;
  final FramingGuard guard;
  /** Netty's decoder, for the responses that are not {@link RawResponse}s (1xx, 101, chunked, close-delimited). */
  final HeadAwareCodecs.ResponseDecoder decoder;
  private Channel channel;
  /** The guard's context: what is written there goes out as it is, past the request encoder. */
  private ChannelHandlerContext wire;
  private UpstreamUser exchange;
  /** Whether this connection carried a request before the current one (a pooled keep-alive one). */
  boolean reused;
  /** An HTTP/2 stream the backend provably did not process (refused, or above a GOAWAY's last stream id). */
  private boolean unprocessed;
  /** When it went back to the pool ({@code System.nanoTime()}). */
  long idleSince;
  /** Why the connection failed, if it said (e.g. a {@link Rejection} from its guard). */
  Throwable cause;
  /** How much one read of this connection takes; {@code null} for an HTTP/2 stream. */
  final ReadSize reads;

  Upstream(String key, FramingGuard guard, HeadAwareCodecs.ResponseDecoder decoder) {
    this.key = key;
    this.guard = guard;
    this.decoder = decoder;
    this.reads = guard == null ? null : new ReadSize();
  }

  /** An HTTP/2 stream to the backend under {@code key}: no guard, no HTTP/1.1 decoder. */
  Upstream(String key) {
    this(key, null, null);
  }

  /** Whether this is an HTTP/2 stream (one request, never pooled) rather than an HTTP/1.1 connection. */
  public boolean multiplexed() {
    return guard == null;
  }

  /** Tells the guard and the decoder whether the next response answers a {@code HEAD} request. */
  public void expectResponseTo(boolean headRequest) {
    if (guard != null) {
      guard.expectResponseTo(headRequest);
      decoder.expectResponseTo(headRequest);
    }
  }

  /** Whether the connection may carry another request (see {@link FramingGuard#reusable}); never a stream. */
  public boolean reusable() {
    return guard != null && channel.isActive() && guard.reusable();
  }

  /**
   * Whether the connection may go back to the pool after a response: reusable, and everything
   * written to it was sent (a backend that answered early may leave part of the request body
   * queued, which must not go before the next request).
   */
  public boolean poolable() {
    ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
    return reusable() && (out == null || out.totalPendingWriteBytes() == 0);
  }

  public Channel channel() {
    return channel;
  }

  /** Where a request head already in HTTP/1.1 form is written ({@link RawRequest}). */
  public ChannelHandlerContext wire() {
    return wire;
  }

  /** Whether this connection carried a request before the current one (a pooled keep-alive one). */
  public boolean reused() {
    return reused;
  }

  /**
   * Whether this HTTP/2 stream was provably not processed by the backend (it refused the stream,
   * or the stream is above its GOAWAY's last stream id): a retry elsewhere is safe (RFC 9113 §8.7).
   */
  public boolean unprocessed() {
    return unprocessed;
  }

  /** Why the connection failed, if it said; {@code null} if not. */
  public Throwable cause() {
    return cause;
  }

  /** Gives up on the connection for {@code why} (a malformed response, say): it closes. */
  public void fail(Throwable why) {
    cause = why;
    channel.close();
  }

  /**
   * Serves {@code e} from now on; {@code toStream}: its response goes to an HTTP/2 stream, so each
   * read of the connection takes no more than the client can take then ({@link ReadSize}).
   */
  public void attach(UpstreamUser e, boolean toStream) {
    exchange = e;
    if (reads != null) {
      reads.serve(toStream ? e : null);
    }
  }

  /** Serves no exchange any more. */
  public void detach() {
    exchange = null;
    if (reads != null) {
      reads.serve(null);
    }
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    channel = ctx.channel();
    wire = ctx.pipeline().context(FramingGuard.NAME);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    UpstreamUser e = exchange;
    if (e == null) {
      ReferenceCountUtil.release(msg);
      ctx.close(); // a backend talking out of turn cannot be trusted with the next request
      return;
    }
    e.fromUpstream(msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    UpstreamUser e = exchange;
    if (e != null) {
      e.flushToClient();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    UpstreamUser e = exchange;
    if (e != null && ctx.channel().isWritable()) {
      e.upstreamWritable();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    UpstreamUser e = exchange;
    exchange = null;
    if (e != null) {
      e.upstreamClosed(this);
    }
  }

  /** A stream's {@code RST_STREAM} or its connection's {@code GOAWAY} (the stream is above its last id). */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof Http2ResetFrame r) {
      if (r.errorCode() == Http2Error.REFUSED_STREAM.code()) {
        unprocessed = true;
        cause = new IOException("stream refused by the backend");
      } else if (cause == null) {
        cause = new IOException("stream reset by the backend: " + Http2Error.valueOf(r.errorCode()));
      }
    } else if (evt instanceof Http2GoAwayFrame) {
      unprocessed = true;
      cause = new IOException("stream above the backend's GOAWAY last stream id");
    }
    ReferenceCountUtil.release(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (this.cause == null) {
      this.cause = cause;
    }
    ctx.close();
  }
}
