package dev.fairway.proxy;

import dev.fairway.proxy.tls.TlsTerminator;
import dev.fairway.proxy.upstream.UpstreamPool;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's listening sockets (cleartext, TLS or both): accepts connections on Vert.x's acceptor
 * thread and hands each to the next {@link ProxyVerticle} in turn, whose event loop then does all
 * its I/O.
 *
 * <p>Example: with four proxy verticles joined (lanes 0..3), connections 1..5 go to lanes 1, 2, 3,
 * 0, 1: the turn moves on before each hand-off, whichever socket accepted them. Each lane forwards
 * its connections' requests on its own event loop with its own backend pool; a connection of the
 * TLS socket gets the {@link TlsTerminator}'s handlers in front of the lane's HTTP handlers. With
 * {@code proxy.acceptProxyProtocol} both sockets' connections first go through a
 * {@link ProxyProtocol} gate, which adds those handlers once the PROXY header is read.
 *
 * <p>The first {@code h2Lanes} lanes to join also serve HTTP/2 connections: one that another lane
 * accepted moves to them, in turn, once it shows HTTP/2's preface ({@link LaneHandoff}). With 4
 * lanes joined in the order 0, 1, 2, 3 and 2 for HTTP/2, an h2c connection accepted by lane 2 or
 * 3 goes on to lane 0, the next such to lane 1; those that lanes 0 and 1 accept stay.
 */
public final class Listener {
  private static final Logger LOG = LoggerFactory.getLogger(Listener.class);
  private final List<ProxyVerticle> lanes = new CopyOnWriteArrayList<>();
  private int next;
  private final int h2Lanes;
  private int nextH2;
  private final List<Channel> servers = new ArrayList<>();

  /** @param h2Lanes how many lanes serve HTTP/2 connections (the first to join) */
  public Listener(int h2Lanes) {
    this.h2Lanes = h2Lanes;
  }

  /** A proxy verticle is ready to take connections. */
  void join(ProxyVerticle lane) {
    lanes.add(lane);
  }

  /** A proxy verticle stops; the socket closes when the last one has left. */
  synchronized void leave(ProxyVerticle lane) {
    lanes.remove(lane);
    if (lanes.isEmpty()) {
      close();
    }
  }

  /**
   * Binds {@code host:port} (0: any free port); completes with the port bound.
   *
   * @param tls           the TLS handlers for this socket's connections, or {@code null} for cleartext
   * @param proxyProtocol what reads the PROXY protocol header each connection opens with (before
   *                      TLS), or {@code null} when connections start with HTTP or TLS at once
   */
  public Future<Integer> bind(Vertx vertx, String host, int port, TlsTerminator tls, ProxyProtocol proxyProtocol) {
    VertxInternal vx = (VertxInternal) vertx;
    Promise<Integer> bound = Promise.promise();
    new ServerBootstrap()
        .group(vx.acceptorEventLoopGroup(), vx.nettyEventLoopGroup())
        .channelFactory(vx.transport().serverChannelFactory(false))
        .option(ChannelOption.SO_BACKLOG, 1024)
        .option(ChannelOption.SO_REUSEADDR, true)
        .handler(new Acceptor(tls, proxyProtocol))
        .childHandler(new ChannelInboundHandlerAdapter())
        .bind(host, port)
        .addListener(f -> {
          if (f.isSuccess()) {
            Channel server = ((ChannelFuture) f).channel();
            synchronized (this) {
              servers.add(server);
            }
            bound.complete(((InetSocketAddress) server.localAddress()).getPort());
          } else {
            bound.fail(f.cause());
          }
        });
    return bound.future();
  }

  /** Stops accepting connections on every socket; open ones are left to their lanes. */
  public synchronized void close() {
    servers.forEach(Channel::close);
    servers.clear();
  }

  private synchronized ProxyVerticle nextLane() {
    if (lanes.isEmpty()) {
      return null;
    }
    next = (next + 1) % lanes.size();
    return lanes.get(next);
  }

  /**
   * The lane an HTTP/2 connection accepted by {@code from} moves to, or {@code null} when it stays
   * (a lane that serves HTTP/2 itself, or one that has left).
   */
  synchronized ProxyVerticle h2Lane(ProxyVerticle from) {
    int serving = Math.min(h2Lanes, lanes.size());
    int at = lanes.indexOf(from);
    if (at < serving || serving == 0) {
      return null;
    }
    nextH2 = (nextH2 + 1) % serving;
    return lanes.get(nextH2);
  }

  /** On the server channel: registers each accepted connection with a lane's event loop. */
  @ChannelHandler.Sharable
  private final class Acceptor extends ChannelInboundHandlerAdapter {
    private final TlsTerminator tls;
    private final ProxyProtocol proxyProtocol;

    Acceptor(TlsTerminator tls, ProxyProtocol proxyProtocol) {
      this.tls = tls;
      this.proxyProtocol = proxyProtocol;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Channel child = (Channel) msg;
      ProxyVerticle lane = nextLane();
      if (lane == null) {
        child.unsafe().closeForcibly();
        return;
      }
      child.config().setOption(ChannelOption.TCP_NODELAY, true);
      child.config().setAllocator(UpstreamPool.ALLOCATOR);
      Consumer<ChannelPipeline> handlers = p -> {
        if (tls != null) {
          tls.install(p);
        }
        p.addLast(lane.initializer(tls != null));
      };
      if (proxyProtocol != null) {
        proxyProtocol.install(child.pipeline(), handlers); // they come once the PROXY header is in
      } else {
        handlers.accept(child.pipeline());
      }
      lane.loop().register(child).addListener(f -> {
        if (!f.isSuccess()) {
          child.unsafe().closeForcibly();
        }
      });
    }

    /**
     * An accept failed (too many open files, say): pause accepting for a second rather than
     * spin on the error, as Netty's own acceptor does.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.warn("accepting a connection failed, pausing accepts for 1 s: {}", cause.toString());
      ctx.channel().config().setAutoRead(false);
      ctx.channel().eventLoop().schedule(() -> ctx.channel().config().setAutoRead(true), 1, TimeUnit.SECONDS);
    }
  }
}
