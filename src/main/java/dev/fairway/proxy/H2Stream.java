package dev.fairway.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.ReferenceCountUtil;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One HTTP/2 stream of a client connection that spoke h2c ({@link H2c}), last in the stream's
 * pipeline: it reads the stream's frames, its one request becomes an {@link Exchange} exactly as
 * an HTTP/1.1 request would, and the response goes back as frames (Fairway's own answers and
 * decoded responses through Netty's {@code HttpObject}-to-frame codec, in front of it).
 *
 * <p>Example: stream 3 carries {@code GET /a} with {@code :authority shop}. The backend gets
 * {@code GET /a HTTP/1.1} with {@code Host: shop} and Fairway's forwarding fields; its
 * {@code 200} with {@code Content-Length: 6} comes back as a HEADERS frame ({@code :status 200},
 * {@code content-length 6}, {@code via 1.1 fairway}) and one DATA frame ending the stream. A
 * stream that waits for a slot or a backend stops being read, so HTTP/2 flow control holds its
 * body back; the other streams of the connection go on.
 */
final class H2Stream extends ChannelInboundHandlerAdapter implements Downstream {
  private final ProxyVerticle proxy;
  private final ClientConnection connection;
  private ChannelHandlerContext ctx;
  private Channel channel;
  private Exchange exchange;
  /** The request's head came (a later HEADERS frame carries trailers). */
  private boolean requestSeen;
  private boolean requestEnded;
  private final ReadPauses paused = new ReadPauses();

  H2Stream(ProxyVerticle proxy, ClientConnection connection) {
    this.proxy = proxy;
    this.connection = connection;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.channel = ctx.channel();
    connection.streamOpened();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    connection.touch();
    if (msg instanceof Http2HeadersFrame f) {
      if (!requestSeen) {
        requestSeen = true;
        requestEnded = f.isEndStream();
        onRequest(f.headers(), f.stream().id());
      } else if (f.isEndStream()) { // trailers end the body; they are dropped, as over HTTP/1.1
        requestEnded = true;
        if (exchange != null) {
          exchange.fromClient(LastHttpContent.EMPTY_LAST_CONTENT);
        }
      }
      return;
    }
    if (msg instanceof Http2DataFrame f) {
      boolean last = f.isEndStream();
      requestEnded |= last;
      if (exchange != null) {
        exchange.fromClient(last ? new DefaultLastHttpContent(f.content()) : new DefaultHttpContent(f.content()));
      } else {
        f.release();
      }
      return;
    }
    ReferenceCountUtil.release(msg);
  }

  /**
   * A request without a body takes the byte path of HTTP/1.1 ({@link RawRequest#ofHttp2}); one
   * with a body becomes Netty's {@code HttpRequest}, chunked to the backend unless it gave
   * {@code content-length}.
   */
  private void onRequest(Http2Headers h, int streamId) {
    Failure bad = check(h, proxy.limits().maxRequestLineBytes(), proxy.limits().maxHeaderCount());
    if (bad != null) {
      respond(HttpVersion.HTTP_1_1, true, bad, 0, !requestEnded);
      return;
    }
    Exchange e;
    if (requestEnded) {
      e = proxy.exchange(this, RawRequest.ofHttp2(h));
    } else {
      HttpRequest req;
      try {
        req = HttpConversionUtil.toHttpRequest(streamId, h, false);
      } catch (Http2Exception | RuntimeException ex) {
        respond(HttpVersion.HTTP_1_1, true, Failure.MALFORMED_REQUEST, 0, true);
        return;
      }
      HttpHeaders fields = req.headers();
      for (HttpConversionUtil.ExtensionHeaderNames n : HttpConversionUtil.ExtensionHeaderNames.values()) {
        fields.remove(n.text());
      }
      if (!HttpUtil.isContentLengthSet(req)) {
        fields.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      }
      e = proxy.exchange(this, req);
    }
    if (e == null) {
      return;
    }
    exchange = e;
    e.start();
  }

  /**
   * What an HTTP/1.1 request head could not carry, and the guard would have refused: no
   * {@code :method} or {@code :path} (so no {@code CONNECT}), a method that is no token, a
   * target or field value with control characters (RFC 9113 §8.2.1), a target or a field count
   * over the limits; {@code null} if none. Netty's codec has checked the field names already.
   */
  static Failure check(Http2Headers h, int maxTargetBytes, int maxFields) {
    CharSequence method = h.method();
    CharSequence path = h.path();
    if (method == null || path == null || method.length() == 0 || path.length() == 0) {
      return Failure.MALFORMED_REQUEST;
    }
    if (path.length() > maxTargetBytes) {
      return Failure.URI_TOO_LONG;
    }
    for (int i = 0; i < method.length(); i++) {
      if (!HeadCheck.isTokenChar(method.charAt(i))) {
        return Failure.MALFORMED_REQUEST;
      }
    }
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c <= ' ' || c >= 0x7f) {
        return Failure.MALFORMED_REQUEST;
      }
    }
    int fields = 0;
    for (Map.Entry<CharSequence, CharSequence> f : h) {
      CharSequence v = f.getValue();
      for (int i = 0; i < v.length(); i++) {
        char c = v.charAt(i);
        if (c == '\r' || c == '\n' || c == 0) {
          return Failure.MALFORMED_REQUEST;
        }
      }
      CharSequence name = f.getKey();
      if (name.length() == 0 || name.charAt(0) != ':') {
        fields++;
      }
    }
    return fields > maxFields ? Failure.HEADERS_TOO_LARGE : null;
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    Exchange e = exchange;
    if (e != null) {
      e.flushToUpstream();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    Exchange e = exchange;
    if (e != null && channel.isWritable()) {
      e.clientWritable();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    connection.streamClosed();
    Exchange e = exchange;
    exchange = null;
    if (e != null) {
      e.clientGone();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }

  @Override
  public Channel channel() {
    return channel;
  }

  @Override
  public ChannelHandlerContext ctx() {
    return ctx;
  }

  /** Frames pass the {@code HttpObject} codec untouched, so raw heads and bodies go to the same place. */
  @Override
  public ChannelHandlerContext wire() {
    return ctx;
  }

  @Override
  public String remote() {
    return connection.remote();
  }

  @Override
  public boolean multiplexed() {
    return true;
  }

  @Override
  public void touch() {
    connection.touch();
  }

  /** Stops reading this stream: its flow-control window is no longer opened, so the client holds its body. */
  @Override
  public void pause(int reason) {
    paused.pause(channel, reason);
  }

  @Override
  public void resume(int reason) {
    paused.resume(channel, reason);
  }

  /** A malformed HTTP/2 body is a stream error Netty answers itself (the stream is reset and closes). */
  @Override
  public void bodyFault(Consumer<Failure> handler) {
  }

  @Override
  public void releaseBodyFault(Consumer<Failure> handler) {
  }

  @Override
  public Object continueMessage() {
    return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER);
  }

  @Override
  public Object rawHead(RawResponse r, boolean http10, boolean closeClient, boolean last) {
    return new DefaultHttp2HeadersFrame(r.toHttp2(), last);
  }

  @Override
  public Object rawBody(ByteBuf content, boolean last) {
    return new DefaultHttp2DataFrame(content, last);
  }

  /** Fairway's own status, as on a connection but without {@code Connection} (HTTP/2 has none). */
  @Override
  public boolean respond(HttpVersion version, boolean keepAlive, Failure f, long waitTimeoutMs, boolean unreadBody) {
    FullHttpResponse resp = f.response(HttpVersion.HTTP_1_1, waitTimeoutMs);
    connection.touch();
    if (unreadBody) {
      ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE); // the rest of the body is refused
    } else {
      ctx.writeAndFlush(resp);
    }
    return false;
  }

  /** An {@code RST_STREAM}: the response cannot look complete. */
  @Override
  public void reset() {
    channel.close();
  }

  /**
   * The stream's exchange is over. A body still coming is read and dropped, so the client is not
   * left stuck on flow control; while Fairway drains, the connection is closed gracefully (a
   * GOAWAY: the streams under way finish).
   */
  @Override
  public void exchangeDone(Exchange e, boolean close) {
    if (exchange != e) {
      return;
    }
    exchange = null;
    resume(ReadPauses.AWAIT | ReadPauses.UPSTREAM);
    if (proxy.draining()) {
      connection.channel().close();
    }
  }

  /** Only pipelined HTTP/1.1 requests wait behind each other; a stream carries one request. */
  @Override
  public void closeWhenDone() {
  }

  /** HTTP/2 has no {@code Upgrade}: its requests never ask to switch protocols ({@link H2c} drops the field). */
  @Override
  public void tunnelTo(Channel peer) {
    throw new IllegalStateException("an HTTP/2 stream cannot switch protocols");
  }
}
