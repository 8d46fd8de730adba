package dev.fairway.proxy.upstream;

import dev.fairway.proxy.wire.ClientRequest;
import dev.fairway.proxy.wire.FramingGuard;
import dev.fairway.proxy.wire.HeadAwareCodecs;
import dev.fairway.proxy.wire.RawRequest;
import dev.fairway.proxy.wire.RawResponse;
import dev.fairway.proxy.wire.Rejection;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.ReferenceCountUtil;

/**
 * One HTTP/1.1 connection to a backend, last in its pipeline (an {@code SslHandler} for an
 * {@code https://} backend, {@link FramingGuard}, Netty's request encoder and response decoder,
 * this): relays what the backend sends to the {@link UpstreamUser} it serves now (an exchange),
 * and goes back to its {@link UpstreamPool} between exchanges.
 *
 * <p>Example: an exchange for b1 takes an idle connection to b1 from the pool, writes its request,
 * and gets the response head and body parts from {@link #channelRead}; once the last part has
 * been relayed and the backend kept the connection open, the connection is idle again.
 */
public final class BackendConnection extends ChannelInboundHandlerAdapter implements Upstream, IdleStack.Member {
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
  /** When it went back to the pool ({@code System.nanoTime()}). */
  private long idleSince;
  /** Why the connection failed, if it said (e.g. a {@link Rejection} from its guard). */
  Throwable cause;
  /** How much one read of this connection takes. */
  final ReadSize reads = new ReadSize();

  BackendConnection(String key, FramingGuard guard, HeadAwareCodecs.ResponseDecoder decoder) {
    this.key = key;
    this.guard = guard;
    this.decoder = decoder;
  }

  @Override
  public boolean multiplexed() {
    return false;
  }

  @Override
  public long idleSince() {
    return idleSince;
  }

  @Override
  public void idleSince(long nanos) {
    idleSince = nanos;
  }

  @Override
  public void expectResponseTo(boolean headRequest) {
    guard.expectResponseTo(headRequest);
    decoder.expectResponseTo(headRequest);
  }

  /** Whether the connection may carry another request (see {@link FramingGuard#reusable}). */
  boolean reusable() {
    return channel.isActive() && guard.reusable();
  }

  /**
   * Whether the connection may go back to the pool after a response: reusable, and everything
   * written to it was sent (a backend that answered early may leave part of the request body
   * queued, which must not go before the next request).
   */
  @Override
  public boolean poolable() {
    ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
    return reusable() && (out == null || out.totalPendingWriteBytes() == 0);
  }

  /** The connection's channel (for a tunnel after {@code 101}, and its pool). */
  @Override
  public Channel socket() {
    return channel;
  }

  @Override
  public boolean reused() {
    return reused;
  }

  @Override
  public boolean unprocessed() {
    return false;
  }

  @Override
  public Throwable cause() {
    return cause;
  }

  @Override
  public void fail(Throwable why) {
    cause = why;
    channel.close();
  }

  /** {@inheritDoc} The head goes out as it is, past the request encoder ({@link RawRequest}). */
  @Override
  public boolean sendHead(ClientRequest request) {
    return request.writeTo(channel, wire);
  }

  @Override
  public void write(Object msg) {
    channel.write(msg);
  }

  @Override
  public void flush() {
    channel.flush();
  }

  @Override
  public boolean writable() {
    return channel.isWritable();
  }

  @Override
  public void autoRead(boolean on) {
    channel.config().setAutoRead(on);
  }

  @Override
  public void close() {
    channel.close();
  }

  /**
   * {@inheritDoc} {@code toStream}: each read of the connection takes no more than the client's
   * stream can take then ({@link ReadSize}).
   */
  @Override
  public void attach(UpstreamUser e, boolean toStream) {
    exchange = e;
    reads.serve(toStream ? e : null);
  }

  @Override
  public void detach() {
    exchange = null;
    reads.serve(null);
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

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (this.cause == null) {
      this.cause = cause;
    }
    ctx.close();
  }
}
