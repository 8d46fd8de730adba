package dev.fairway.proxy;

import dev.fairway.proxy.exchange.Downstream;
import dev.fairway.proxy.exchange.Exchange;
import dev.fairway.proxy.exchange.Gateway;
import dev.fairway.proxy.exchange.ReadPauses;
import dev.fairway.proxy.h2.ClientSide;
import dev.fairway.proxy.h2.H2Connection;
import dev.fairway.proxy.h2.H2c;
import dev.fairway.proxy.upstream.UpstreamPool;
import dev.fairway.proxy.wire.DecodedRequest;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.proxy.wire.FramingGuard;
import dev.fairway.proxy.wire.HeadAwareCodecs;
import dev.fairway.proxy.wire.RawRequest;
import dev.fairway.proxy.wire.RawResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.net.SocketAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One client connection, last in its pipeline: starts an {@link Exchange} per request, one at a
 * time (pipelined requests wait their turn), gives it the request's body parts, and answers with
 * Fairway's own statuses ({@link Failure}).
 *
 * <p>Example: {@code GET /a} and {@code GET /b} pipelined in one packet: the exchange for
 * {@code /a} starts, {@code /b} waits with reading paused, and starts when {@code /a}'s response
 * is complete, so responses go out in request order.
 */
final class ClientConnection extends ChannelInboundHandlerAdapter implements Downstream, ClientSide {
  private static final ByteBuf CONTINUE =
      Unpooled.unreleasableBuffer(Unpooled.copiedBuffer("HTTP/1.1 100 Continue\r\n\r\n", StandardCharsets.US_ASCII));

  private final Gateway gateway;
  /** The lane's open client connections, this one among them while it is open. */
  private final Set<ClientConnection> registry;
  /** The HTTP/1.1 handlers of the pipeline ({@code null} once it speaks HTTP/2). */
  private FramingGuard guard;
  private HeadAwareCodecs.ResponseEncoder encoder;
  private ChannelHandlerContext ctx;
  /** The guard's context: what is written there goes out as it is, past the response encoder. */
  private ChannelHandlerContext wire;
  private Channel channel;
  private String remote;
  private SocketAddress remoteAddress;
  private Object socketMetric;
  private Exchange current;
  private final HeldRequests queued = new HeldRequests();
  private final Consumer<Object> dispatcher = this::dispatch;
  private final BooleanSupplier busy = () -> current != null;
  private final ReadPauses paused = new ReadPauses();
  private boolean closing;
  /** Close once the current exchange ends (the body of a request queued behind it broke). */
  private boolean closeWhenDone;
  private final IdleTimeout idle = new IdleTimeout();
  /** The backend connection this one is tunnelled to (after a {@code 101}), or {@code null}. */
  private Channel tunnel;
  /** The connection's streams once it speaks HTTP/2, else {@code null}. */
  private H2Connection h2Streams;
  private final boolean secure;

  /** @param secure whether the connection came in over TLS */
  ClientConnection(Gateway gateway, Set<ClientConnection> registry, FramingGuard guard,
                   HeadAwareCodecs.ResponseEncoder encoder, boolean secure) {
    this.secure = secure;
    this.gateway = gateway;
    this.registry = registry;
    this.guard = guard;
    this.encoder = encoder;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.channel = ctx.channel();
    this.wire = ctx.pipeline().context(FramingGuard.NAME);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    InetSocketAddress peer = ClientAddress.of(channel);
    remote = ClientAddress.text(peer);
    if (gateway.context().httpMeters().on() && peer != null) {
      remoteAddress = SocketAddress.inetSocketAddress(peer);
      socketMetric = gateway.context().httpMeters().connected(remoteAddress);
    }
    registry.add(this);
    idle.start(channel, gateway.limits().idleTimeoutMs(), this::idleTick);
    ctx.fireChannelActive();
  }

  @Override
  public Channel channel() {
    return channel;
  }

  /** Through the response encoder. */
  @Override
  public void write(Object msg) {
    ctx.write(msg);
  }

  /** Bytes already in HTTP/1.1 form (a {@link RawResponse}'s head and body, {@code 100 Continue}), past the encoder. */
  @Override
  public void writeRaw(Object msg) {
    wire.write(msg);
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
  public String remote() {
    return remote;
  }

  @Override
  public boolean multiplexed() {
    return false;
  }

  @Override
  public boolean secure() {
    return secure;
  }

  @Override
  public void touch() {
    idle.touch();
  }

  @Override
  public void bodyFault(Consumer<Failure> handler) {
    guard.bodyFault(handler);
  }

  @Override
  public void releaseBodyFault(Consumer<Failure> handler) {
    guard.releaseBodyFault(handler);
  }

  @Override
  public Object continueMessage() {
    return CONTINUE.duplicate();
  }

  @Override
  public Object rawHead(RawResponse r, boolean http10, boolean closeClient, boolean last) {
    return r.toClient(http10, closeClient, channel.alloc());
  }

  @Override
  public Object rawBody(ByteBuf content, boolean last) {
    return content;
  }

  /** A TCP reset rather than a FIN: a body that ends at the connection's close must not look complete. */
  @Override
  public void reset() {
    channel.config().setOption(ChannelOption.SO_LINGER, 0);
    channel.close();
  }

  /**
   * The connection now speaks HTTP/2: {@code h2} carries its streams, each its own
   * {@link Downstream}. The HTTP/1.1 handlers, gone from the pipeline, are let go of (an idle
   * HTTP/2 connection keeps less).
   */
  public void switchedToH2(H2Connection h2) {
    h2Streams = h2;
    guard = null;
    encoder = null;
    wire = null;
  }

  /** Whether the connection speaks HTTP/2 ({@link H2c}): its requests come as streams, not to this handler. */
  boolean h2() {
    return guard == null;
  }

  /** An idle-timeout tick: over HTTP/2 each stream is timed out the same way on its own ({@link H2Connection#idleTick}). */
  private void idleTick() {
    if (h2Streams != null) {
      h2Streams.idleTick(IdleTimeout.TICKS);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    idle.touch();
    if (tunnel != null) {
      tunnel.write(msg);
      if (!tunnel.isWritable()) {
        pause(ReadPauses.TUNNEL);
      }
      return;
    }
    if (queued.any()) {
      queued.hold(msg);
      return;
    }
    dispatch(msg);
  }

  private void dispatch(Object msg) {
    if (msg instanceof RawRequest raw) {
      if (current != null) {
        queue(msg);
        return;
      }
      encoder.answeringHead(raw.method() == HttpMethod.HEAD);
      if (!closing) {
        start(gateway.open(this, raw), null);
      }
      return;
    }
    if (msg instanceof HttpRequest req) {
      if (current != null) {
        queue(msg);
        return;
      }
      encoder.answeringHead(req.method() == HttpMethod.HEAD && req.decoderResult().isSuccess());
      if (closing || req.decoderResult().isFailure()) {
        ReferenceCountUtil.release(msg); // the guard's stand-in is a FullHttpRequest with an empty buffer
        if (!closing) {
          respond(HttpVersion.HTTP_1_1, false, Failure.of(req.decoderResult().cause()), 0, true, DecodedRequest.grpc(req.headers()), null);
        }
        return;
      }
      Exchange e = gateway.open(this, new DecodedRequest(req));
      if (e == null) {
        ReferenceCountUtil.release(msg); // answered by Fairway itself
        return;
      }
      start(e, msg instanceof HttpContent c ? c : null);
      return;
    }
    if (msg instanceof HttpContent c && current != null) {
      current.fromClient(c);
      return;
    }
    if (msg instanceof HttpContent c && c.decoderResult().isFailure() && !closing) {
      closeAfterWrites(); // the decoder is lost in a body no exchange takes: no request can follow
    }
    ReferenceCountUtil.release(msg); // the body of a request already answered
  }

  /** A request that waits for the one before it (pipelining). */
  private void queue(Object msg) {
    queued.hold(msg);
    pause(ReadPauses.PIPELINE);
  }

  /** Starts the exchange of a request ({@code null}: Fairway answered it itself) with the body part that came with its head. */
  private void start(Exchange e, HttpContent first) {
    if (e == null) {
      return;
    }
    current = e;
    e.start();
    if (first != null) {
      e.fromClient(first);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (tunnel != null) {
      tunnel.flush();
      return;
    }
    Exchange e = current;
    if (e != null) {
      e.flushToUpstream();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (!channel.isWritable()) {
      return;
    }
    if (tunnel != null) {
      tunnel.config().setAutoRead(true);
    } else if (current != null) {
      current.clientWritable();
    }
  }

  @Override
  public void pause(int reason) {
    paused.pause(channel, reason);
  }

  @Override
  public void resume(int reason) {
    paused.resume(channel, reason);
  }

  /**
   * The exchange is over: the next pipelined request (if any) starts, unless the connection is
   * to close ({@code close}) once what was written is sent.
   */
  @Override
  public void exchangeDone(Exchange e, boolean close) {
    if (current != e) {
      return;
    }
    current = null;
    resume(ReadPauses.AWAIT | ReadPauses.UPSTREAM);
    if (close || closeWhenDone || gateway.draining() && channel.isActive()) {
      closeAfterWrites();
      return;
    }
    queued.replay(dispatcher, busy);
    if (current != null) {
      current.flushToUpstream(); // what the queue held was written, and no read will come to flush it
    }
    if (!queued.any()) {
      resume(ReadPauses.PIPELINE);
    }
  }

  /** The connection closes when the current exchange ends, taking no further request. */
  @Override
  public void closeWhenDone() {
    closeWhenDone = true;
  }

  /** Closes the connection once everything written so far is sent. */
  void closeAfterWrites() {
    closing = true;
    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  /** Whether the connection carries no exchange (and no HTTP/2 stream) now: it may be closed at once when draining. */
  boolean idle() {
    return current == null && tunnel == null && (h2Streams == null || h2Streams.idle());
  }

  /**
   * Answers with Fairway's own status for {@code f}: one plain-text line naming the reason. A
   * response already begun is cut instead (the connection closes).
   *
   * @param version    the request's HTTP version
   * @param keepAlive  whether the client asked to keep the connection open
   * @param unreadBody the request's body was not read: the connection cannot carry another
   * @return whether the connection closes after this answer
   */
  @Override
  public boolean respond(HttpVersion version, boolean keepAlive, Failure f, long waitTimeoutMs, boolean unreadBody, boolean grpc, String requestId) {
    boolean close = f.closeConnection() || unreadBody || !keepAlive || gateway.draining();
    FullHttpResponse resp = f.response(version, waitTimeoutMs, close, grpc, requestId);
    idle.touch();
    if (close) {
      closing = true;
      ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
    } else {
      ctx.writeAndFlush(resp);
    }
    return close;
  }

  /**
   * From now on the connection carries another protocol: every byte read goes to {@code peer}
   * (a backend connection that answered {@code 101}), unparsed.
   */
  @Override
  public void tunnelTo(Channel peer) {
    tunnel = peer;
    guard.tunnel();
    ctx.pipeline().remove(UpstreamPool.DECODER);
    ctx.pipeline().remove(UpstreamPool.ENCODER);
    resume(ReadPauses.AWAIT | ReadPauses.UPSTREAM | ReadPauses.PIPELINE);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    idle.stop();
    Exchange e = current;
    current = null;
    if (e != null) {
      e.clientGone();
    }
    if (tunnel != null) {
      tunnel.close();
    }
    queued.releaseAll();
    gateway.context().httpMeters().disconnected(socketMetric, remoteAddress);
    registry.remove(this);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
