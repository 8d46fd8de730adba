package dev.fairway.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import io.netty.util.ReferenceCountUtil;

/**
 * Benchmark baseline, not part of Fairway: the least an HTTP/1.1 reverse proxy on the JVM can do
 * per request with Netty alone (no Vert.x HTTP layer, no checks, no metrics), to tell how much of
 * the distance to HAProxy is the JVM and Netty and how much is the layers above them.
 *
 * <p>Example: {@code NettyProxyBaseline 127.0.0.1 30083 127.0.0.1:30001 127.0.0.1:30002} listens
 * on 127.0.0.1:30083 and forwards requests round robin to 30001, 30002, 30001, ... over
 * keep-alive connections pooled per event loop, adding {@code X-Forwarded-For} as HAProxy's
 * {@code option forwardfor} does. One request at a time per client connection (no pipelining);
 * writes are flushed once per read batch.
 *
 * <p>The optional system property {@code baseline.threads} sets the event loops (default: cores).
 * It runs on Netty's epoll transport where available, as Fairway does.
 */
public final class NettyProxyBaseline {
  private static final AtomicLong CURSOR = new AtomicLong();
  private static Class<? extends ServerChannel> serverChannel;
  private static Class<? extends Channel> clientChannel;

  private final List<InetSocketAddress> origins;
  /** Idle backend connections, per event loop and origin (touched only on that event loop). */
  private final Map<EventLoop, List<ArrayDeque<Channel>>> idle = new IdentityHashMap<>();

  private NettyProxyBaseline(List<InetSocketAddress> origins) {
    this.origins = origins;
  }

  public static void main(String[] args) throws InterruptedException {
    if (args.length < 3) {
      throw new IllegalArgumentException("usage: NettyProxyBaseline HOST PORT ORIGIN_HOST:PORT...");
    }
    List<InetSocketAddress> origins = new ArrayList<>();
    for (int i = 2; i < args.length; i++) {
      String[] hp = args[i].split(":");
      origins.add(new InetSocketAddress(hp[0], Integer.parseInt(hp[1])));
    }
    int threads = Integer.getInteger("baseline.threads", Runtime.getRuntime().availableProcessors());
    boolean epoll = Epoll.isAvailable(); // the transport Fairway uses on Linux
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads,
        epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    serverChannel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    clientChannel = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    NettyProxyBaseline proxy = new NettyProxyBaseline(origins);
    for (var loop : group) {
      List<ArrayDeque<Channel>> perOrigin = new ArrayList<>();
      origins.forEach(o -> perOrigin.add(new ArrayDeque<>()));
      proxy.idle.put((EventLoop) loop, perOrigin);
    }
    Channel server = new ServerBootstrap().group(group).channel(serverChannel)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(new HttpServerCodec(), proxy.new Frontend());
          }
        })
        .bind(args[0], Integer.parseInt(args[1])).sync().channel();
    server.closeFuture().sync();
  }

  /** One client connection: forwards its requests, one at a time, to a backend connection. */
  private final class Frontend extends ChannelInboundHandlerAdapter {
    private Channel client;
    private Channel backend;
    private int origin;
    private boolean keepAlive;
    /** Parts of the request that arrived while its backend connection was being made. */
    private List<Object> pending;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      client = ctx.channel();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof HttpRequest req) {
        keepAlive = HttpUtil.isKeepAlive(req);
        req.headers().remove(HttpHeaderNames.CONNECTION).remove(HttpHeaderNames.KEEP_ALIVE)
            .set("X-Forwarded-For", ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress().getHostAddress());
        HttpUtil.setKeepAlive(req, true);
        origin = (int) (CURSOR.getAndIncrement() % origins.size());
        ArrayDeque<Channel> pool = idle.get(ctx.channel().eventLoop()).get(origin);
        Channel pooled = pool.pollLast();
        while (pooled != null && !pooled.isActive()) {
          pooled = pool.pollLast();
        }
        if (pooled != null) {
          backend = pooled;
          ((Backend) backend.pipeline().last()).frontend = this;
          backend.write(req);
        } else {
          connect(ctx, req);
        }
        return;
      }
      if (pending != null) {
        pending.add(msg);
      } else if (backend != null && backend.isActive()) {
        backend.write(msg);
      } else {
        ReferenceCountUtil.release(msg);
      }
    }

    private void connect(ChannelHandlerContext ctx, HttpRequest req) {
      pending = new ArrayList<>();
      pending.add(req);
      Backend handler = new Backend(this);
      var f = new Bootstrap().group(ctx.channel().eventLoop()).channel(clientChannel)
          .option(ChannelOption.TCP_NODELAY, true)
          .handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              ch.pipeline().addLast(new HttpClientCodec(), handler);
            }
          })
          .connect(origins.get(origin));
      backend = f.channel();
      f.addListener((ChannelFutureListener) cf -> {
        List<Object> parts = pending;
        pending = null;
        if (!cf.isSuccess()) {
          parts.forEach(ReferenceCountUtil::release);
          ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SERVICE_UNAVAILABLE))
              .addListener(ChannelFutureListener.CLOSE);
          return;
        }
        parts.forEach(cf.channel()::write);
        cf.channel().flush();
      });
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      if (backend != null) {
        backend.flush();
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (backend != null) {
        backend.close();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** One backend connection: relays responses to whichever client connection it serves now. */
  private final class Backend extends ChannelInboundHandlerAdapter {
    private Frontend frontend;

    Backend(Frontend frontend) {
      this.frontend = frontend;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Frontend f = frontend;
      if (msg instanceof HttpResponse resp) {
        HttpUtil.setKeepAlive(resp, f.keepAlive);
      }
      f.client.write(msg);
      if (msg instanceof LastHttpContent) {
        f.backend = null;
        idle.get(ctx.channel().eventLoop()).get(f.origin).addLast(ctx.channel());
        if (!f.keepAlive) {
          f.client.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      frontend.client.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
