package dev.fairway.proxy;

import dev.fairway.proxy.h2.ClientSide;
import dev.fairway.proxy.h2.H2c;
import dev.fairway.proxy.upstream.UpstreamPool;
import dev.fairway.proxy.wire.FramingGuard;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;

/**
 * Moves a client connection that opens with HTTP/2's preface from a lane that takes no HTTP/2
 * connections to one that does ({@link Listener#h2Lane}), before anything of HTTP/2 is set up:
 * HTTP/2 connections multiplex many calls each, so on fewer event loops their streams share
 * backend connections and writes, and on 2 cores gRPC ran faster on one loop per core than on
 * the default two.
 *
 * <p>Example: 4 lanes, 2 of them for HTTP/2. An {@code h2load} connection accepted by lane 2
 * sends the preface; lane 2 ends its part (the connection leaves lane 2's open connections),
 * stops reading, holds the bytes read so far, takes the channel off its event loop and
 * registers it with lane 0's, which sets up its own handlers behind the TLS ones (if any), hears
 * {@code channelActive}, reads the held bytes (preface first) and reads on. An HTTP/1.1
 * connection never moves, nor does an HTTP/2 one that lane 0 or 1 accepted.
 */
final class LaneHandoff implements H2c.Handoff {
  private static final AttributeKey<Boolean> MOVED = AttributeKey.valueOf("fairway.movedLane");
  private static final String HOLD = "fairway-lane-move";

  private final Listener listener;
  private final ProxyVerticle from;
  private final boolean tls;

  /** @param tls whether this lane's connections came in on the TLS listener */
  LaneHandoff(Listener listener, ProxyVerticle from, boolean tls) {
    this.listener = listener;
    this.from = from;
    this.tls = tls;
  }

  /** Whether {@code channel} came from another lane (it was counted there). */
  static boolean moved(Channel channel) {
    return channel.hasAttr(MOVED);
  }

  @Override
  public boolean takes(ChannelHandlerContext ctx, ByteBuf first) {
    ProxyVerticle to = listener.h2Lane(from);
    if (to == null) {
      return false;
    }
    Channel ch = ctx.channel();
    ChannelPipeline p = ctx.pipeline();
    ch.config().setAutoRead(false);
    Hold hold = new Hold(first);
    p.addBefore(ctx.name(), HOLD, hold);
    ChannelHandlerContext conn = p.context(ClientSide.NAME);
    ((ClientConnection) conn.handler()).channelInactive(conn); // its part in this lane ends as at a close
    p.remove(ctx.handler());
    p.remove(FramingGuard.NAME);
    p.remove(UpstreamPool.DECODER);
    p.remove(UpstreamPool.ENCODER);
    p.remove(ClientSide.NAME);
    ch.attr(MOVED).set(Boolean.TRUE);
    ch.deregister().addListener(off -> {
      if (!off.isSuccess()) {
        ch.close();
        return;
      }
      to.loop().register(ch).addListener(on -> {
        if (!on.isSuccess()) { // unregistered, the pipeline is not torn down: release what it held here
          hold.drop();
          ch.close(); // not a forcible close: a close completes the close future (if nothing did), which gives back the count
          return;
        }
        p.addLast(to.initializer(tls));
        hold.release(p);
      });
    });
    return true;
  }

  /**
   * Holds what is read while the connection moves (the TLS handler may still pass on records
   * it had decrypted), and gives it to the new lane's handlers with their {@code channelActive}.
   */
  private static final class Hold extends ChannelInboundHandlerAdapter {
    private CompositeByteBuf held;
    private ChannelHandlerContext ctx;

    Hold(ByteBuf first) {
      held = first.alloc().compositeBuffer(Integer.MAX_VALUE).addComponent(true, first);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (held != null && msg instanceof ByteBuf buf) {
        held.addComponent(true, buf);
      } else {
        ctx.fireChannelRead(msg);
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      if (held == null) {
        ctx.fireChannelReadComplete();
      }
    }

    /** On the new lane's event loop, its handlers behind this one. */
    void release(ChannelPipeline p) {
      ByteBuf bytes = held;
      held = null;
      ctx.fireChannelActive();
      ctx.fireChannelRead(bytes);
      ctx.fireChannelReadComplete();
      p.remove(this);
      ctx.channel().config().setAutoRead(true);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
      drop();
    }

    void drop() {
      if (held != null) {
        ReferenceCountUtil.release(held);
        held = null;
      }
    }
  }
}
