package dev.fairway.testing;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2GoAwayFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A cleartext HTTP/2 backend (prior knowledge) made of Netty's frame codec, on 127.0.0.1 and a
 * free port, that writes down every request (fields, body, trailers) and answers by its path.
 *
 * <p>Example: {@code POST /a} with body {@code hi} and trailer {@code x-sum: 7} is recorded as
 * {@code Request[path=/a, body=hi, trailers={x-sum=7}, ...]} and answered {@code 200} with
 * {@code content-type: text/plain}, the body {@code "h2 /a hi"} and the trailer
 * {@code x-checksum: 42}. {@code /refuse} (every request of a {@link #refusing()} one) is reset with {@code REFUSED_STREAM}; after answering
 * {@code /goaway} the backend sends GOAWAY on that connection; a {@link #goingAway()} one answers
 * every request with a GOAWAY that leaves it unprocessed; {@code /hang} is never answered
 * (its {@code RST_STREAM} is written down in {@link #resets}); {@code /crlf} answers a field value
 * with CR LF in it; {@code /health} gets a bare 200.
 */
public final class H2ScriptBackend implements AutoCloseable {
  /** One request as the backend read it. */
  public record Request(String path, Http2Headers headers, String body, Map<String, String> trailers, int connection) {
  }

  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel server;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger refused = new AtomicInteger();
  private final AtomicInteger hanging = new AtomicInteger();
  private final List<Long> resets = new CopyOnWriteArrayList<>();
  private final List<Request> requests = new CopyOnWriteArrayList<>();

  private final boolean refuseAll;
  private final boolean goAwayAll;
  private final AtomicInteger unprocessed = new AtomicInteger();

  private H2ScriptBackend(boolean refuseAll) throws InterruptedException {
    this(refuseAll, false);
  }

  private H2ScriptBackend(boolean refuseAll, boolean goAwayAll) throws InterruptedException {
    this.refuseAll = refuseAll;
    this.goAwayAll = goAwayAll;
    server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build())
                .addLast(new Connection(connections.incrementAndGet()));
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
  }

  public static H2ScriptBackend start() throws InterruptedException {
    return new H2ScriptBackend(false);
  }

  /** A backend that refuses every stream but health checks ({@code REFUSED_STREAM}). */
  public static H2ScriptBackend refusing() throws InterruptedException {
    return new H2ScriptBackend(true);
  }

  /**
   * A backend that answers each stream but health checks with a GOAWAY whose last stream id is
   * below it, as a server does that shuts down just as the stream arrives: the stream is not
   * processed, and the connection closes.
   */
  public static H2ScriptBackend goingAway() throws InterruptedException {
    return new H2ScriptBackend(false, true);
  }

  /** Streams it left unprocessed above a GOAWAY's last stream id ({@link #goingAway()}). */
  public int unprocessed() {
    return unprocessed.get();
  }

  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  /** Connections opened to it. */
  public int connections() {
    return connections.get();
  }

  /** Streams it refused. */
  public int refused() {
    return refused.get();
  }

  /** {@code /hang} requests it read and never answered. */
  public int hanging() {
    return hanging.get();
  }

  /** The error codes of the {@code RST_STREAM}s it received. */
  public List<Long> resets() {
    return resets;
  }

  /** Requests it read to their end (health checks included). */
  public List<Request> requests() {
    return requests;
  }

  @Override
  public void close() throws InterruptedException {
    server.close().sync();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  /** One connection's streams: each request's parts until its end, then the answer. */
  private final class Connection extends ChannelInboundHandlerAdapter {
    private final Map<Integer, Partial> open = new HashMap<>();
    private final int id;

    Connection(int id) {
      this.id = id;
    }

    private final class Partial {
      final Http2Headers headers;
      final StringBuilder body = new StringBuilder();
      final Map<String, String> trailers = new HashMap<>();

      Partial(Http2Headers headers) {
        this.headers = headers;
      }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof Http2ResetFrame r) {
          resets.add(r.errorCode());
        } else if (msg instanceof Http2HeadersFrame f) {
          Partial p = open.get(f.stream().id());
          if (p == null) {
            boolean health = "/health".contentEquals(f.headers().path());
            if (refuseAll && !health || "/refuse".contentEquals(f.headers().path())) {
              refused.incrementAndGet();
              ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.REFUSED_STREAM).stream(f.stream()));
              return;
            }
            if (goAwayAll && !health) {
              unprocessed.incrementAndGet();
              ChannelHandlerContext codec = ctx.pipeline().context(Http2FrameCodec.class);
              ((Http2FrameCodec) codec.handler()).goAway(codec, f.stream().id() - 2, Http2Error.NO_ERROR.code(),
                  Unpooled.EMPTY_BUFFER, codec.newPromise());
              codec.flush();
              ctx.close();
              return;
            }
            p = new Partial(f.headers());
            open.put(f.stream().id(), p);
          } else {
            for (Map.Entry<CharSequence, CharSequence> t : f.headers()) {
              p.trailers.put(t.getKey().toString(), t.getValue().toString());
            }
          }
          if (f.isEndStream()) {
            answer(ctx, f.stream(), open.remove(f.stream().id()));
          }
        } else if (msg instanceof Http2DataFrame f) {
          Partial p = open.get(f.stream().id());
          if (p != null) {
            p.body.append(f.content().toString(StandardCharsets.UTF_8));
          }
          if (f.initialFlowControlledBytes() > 0) {
            ctx.write(new DefaultHttp2WindowUpdateFrame(f.initialFlowControlledBytes()).stream(f.stream()));
          }
          if (f.isEndStream() && p != null) {
            answer(ctx, f.stream(), open.remove(f.stream().id()));
          }
          ctx.flush();
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    private void answer(ChannelHandlerContext ctx, Http2FrameStream stream, Partial p) {
      String path = p.headers.path().toString();
      requests.add(new Request(path, p.headers, p.body.toString(), Map.copyOf(p.trailers), id));
      Http2Headers head = new DefaultHttp2Headers().status("200").set("content-type", "text/plain");
      if (path.equals("/crlf")) {
        head = new DefaultHttp2Headers(false).status("200").set("x-note", "a\r\nset-cookie: evil");
      }
      if (path.equals("/fields")) { // a field a hop drops, a Via to add to, trailers with one that never is a trailer
        head.set("proxy-authenticate", "Basic").set("via", "2 backend").set("x-kept", "k");
      }
      if (path.equals("/hang")) {
        hanging.incrementAndGet();
        return;
      }
      if (path.equals("/health")) {
        ctx.writeAndFlush(new DefaultHttp2HeadersFrame(head, true).stream(stream));
        return;
      }
      ByteBuf body = Unpooled.copiedBuffer("h2 " + path + " " + p.body, StandardCharsets.UTF_8);
      ctx.write(new DefaultHttp2HeadersFrame(head, false).stream(stream));
      ctx.write(new DefaultHttp2DataFrame(body, false).stream(stream));
      Http2Headers trailers = new DefaultHttp2Headers().set("x-checksum", "42");
      if (path.equals("/fields")) {
        trailers.set("content-type", "text/evil");
      }
      ctx.writeAndFlush(new DefaultHttp2HeadersFrame(trailers, true).stream(stream));
      if (path.equals("/goaway")) {
        ctx.writeAndFlush(new DefaultHttp2GoAwayFrame(Http2Error.NO_ERROR));
      }
    }
  }
}
