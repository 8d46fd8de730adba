package dev.fairway.proxy.h2;

import dev.fairway.grpc.GrpcStatus;
import dev.fairway.proxy.exchange.Downstream;
import dev.fairway.proxy.exchange.Exchange;
import dev.fairway.proxy.exchange.Gateway;
import dev.fairway.proxy.exchange.ReadPauses;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.proxy.wire.H1Fields;
import dev.fairway.proxy.wire.H2Fields;
import dev.fairway.proxy.wire.H2Request;
import dev.fairway.proxy.wire.IdleTicks;
import dev.fairway.proxy.wire.RawRequest;
import dev.fairway.proxy.wire.RawResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.util.function.Consumer;

/**
 * One HTTP/2 stream of a client connection that spoke h2c ({@link H2c}), given its frames by the
 * {@link H2Connection}: its one request becomes an {@link Exchange} exactly as an HTTP/1.1 request
 * would, and the response goes back as frames of the stream, written on the connection.
 *
 * <p>Example: stream 3 carries {@code GET /a} with {@code :authority shop}. The backend gets
 * {@code GET /a HTTP/1.1} with {@code Host: shop} and Fairway's forwarding fields; its
 * {@code 200} with {@code Content-Length: 6} comes back as a HEADERS frame ({@code :status 200},
 * {@code content-length 6}, {@code via 1.1 fairway}) and one DATA frame ending the stream. A
 * stream that waits for a slot or a backend does not give its flow-control window back, so the
 * client holds the rest of its body; the other streams of the connection go on.
 */
public final class H2Stream implements Downstream {
  private static final AsciiString CONTINUE = AsciiString.cached("100");
  private final Gateway gateway;
  private final ClientSide connection;
  private final H2Connection h2;
  private final Http2FrameStream stream;
  /** The codec's state of the stream, whose windows say how much the client can take ({@code null} if none). */
  private final Http2Stream windows;
  private Exchange exchange;
  /** The request's head came (a later HEADERS frame carries trailers). */
  private boolean requestSeen;
  private boolean requestEnded;
  private boolean closed;
  /** Why the stream is not read (the {@link ReadPauses} bits): its window is not given back meanwhile. */
  private int paused;
  /** Body bytes read while paused, whose window goes back to the client on resume. */
  private int unreturned;
  /** Given frames in the read under way ({@link H2Connection}'s bookkeeping). */
  boolean inRead;
  /** Whether a frame came or the response moved since the last idle tick, and quiet ticks in a row. */
  private final IdleTicks idle = new IdleTicks();

  H2Stream(Gateway gateway, ClientSide connection, H2Connection h2, Http2FrameStream stream) {
    this.gateway = gateway;
    this.connection = connection;
    this.h2 = h2;
    this.stream = stream;
    this.windows = h2.codecStream(stream.id());
  }

  /** A HEADERS or DATA frame of this stream. */
  void onFrame(Object msg) {
    touch();
    if (msg instanceof Http2HeadersFrame f) {
      if (!requestSeen) {
        requestSeen = true;
        requestEnded = f.isEndStream();
        onRequest(f.headers());
      } else if (f.isEndStream()) { // trailers end the body
        requestEnded = true;
        if (exchange != null) {
          exchange.fromClient(trailers(f.headers()));
        }
      }
      return;
    }
    if (msg instanceof Http2DataFrame f) {
      boolean last = f.isEndStream();
      requestEnded |= last;
      int bytes = f.initialFlowControlledBytes();
      if (paused == 0 || exchange == null) {
        h2.consumed(windows, bytes);
      } else {
        unreturned += bytes;
      }
      if (exchange != null) {
        exchange.fromClient(last ? new DefaultLastHttpContent(f.content(), EmptyHttpHeaders.INSTANCE)
            : new DefaultHttpContent(f.content()));
      } else {
        f.release();
      }
      return;
    }
    ReferenceCountUtil.release(msg);
  }

  /** The request's end with its trailer fields (the exchange drops those that must not be trailers). */
  private LastHttpContent trailers(Http2Headers h) {
    LastHttpContent last = new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER, false);
    H1Fields.add(h, last.trailingHeaders(), false);
    return last;
  }

  /**
   * A request without a body takes the byte path of HTTP/1.1 ({@link RawRequest#ofHttp2}); one
   * with a body keeps its header block ({@link H2Request}).
   */
  private void onRequest(Http2Headers h) {
    Failure bad = StreamHeads.check(h, gateway.limits().maxRequestLineBytes(), gateway.limits().maxHeaderCount());
    if (bad != null) {
      respond(HttpVersion.HTTP_1_1, true, bad, 0, !requestEnded, GrpcStatus.isGrpc(h.get(HttpHeaderNames.CONTENT_TYPE)), null);
      return;
    }
    Exchange e;
    if (requestEnded) {
      e = gateway.open(this, RawRequest.ofHttp2(h));
    } else {
      H2Request req;
      try {
        req = new H2Request(h);
      } catch (RuntimeException ex) { // a method Netty will not take: refused as the guard refuses one
        respond(HttpVersion.HTTP_1_1, true, Failure.MALFORMED_REQUEST, 0, true, GrpcStatus.isGrpc(h.get(HttpHeaderNames.CONTENT_TYPE)), null);
        return;
      }
      e = gateway.open(this, req);
    }
    if (e == null) {
      return;
    }
    exchange = e;
    e.start();
  }

  /** The read that gave this stream frames is over: what its exchange wrote to the backend goes out. */
  void readComplete() {
    Exchange e = exchange;
    if (e != null) {
      e.flushToUpstream();
    }
  }

  /**
   * The client's window for this stream (or its connection's buffer) opened or closed: the
   * response's backend is read again, or no further, so a connection's streams together hold
   * about one buffer's worth of response, not one read each.
   */
  void writabilityChanged() {
    Exchange e = exchange;
    if (e == null) {
      return;
    }
    if (writable()) {
      e.clientWritable();
    } else {
      e.clientBlocked();
    }
  }

  /** The stream closed: ended both ways, reset by either side, or its connection closed. */
  void closed() {
    closed = true;
    Exchange e = exchange;
    exchange = null;
    if (e != null) {
      e.clientGone();
    }
  }

  /** The client's connection: the stream shares its event loop and allocator. */
  @Override
  public Channel channel() {
    return connection.channel();
  }

  /** Fairway's own answers and decoded responses, as frames of this stream. */
  @Override
  public void write(Object msg) {
    send(msg);
  }

  /** {@link #write}, saying when the last frame it wrote has left; {@code null} if it wrote none. */
  private ChannelFuture send(Object msg) {
    if (closed) {
      ReferenceCountUtil.release(msg);
      return null;
    }
    ChannelFuture sent = null;
    if (msg instanceof HttpResponse r) {
      boolean bodyless = r instanceof FullHttpResponse full && !full.content().isReadable();
      sent = h2.ctx().write(new DefaultHttp2HeadersFrame(H2Fields.ofResponse(r), bodyless)
          .stream(stream));
      if (!(r instanceof HttpContent) || bodyless) {
        ReferenceCountUtil.release(r);
        return sent;
      }
    }
    if (msg instanceof HttpContent c) {
      boolean last = c instanceof LastHttpContent;
      if (last && !((LastHttpContent) c).trailingHeaders().isEmpty()) {
        return sendTrailers((LastHttpContent) c);
      }
      if (c.content().isReadable() || last) {
        sent = h2.write(new DefaultHttp2DataFrame(c.content(), last).stream(stream));
      } else {
        c.release();
      }
    }
    return sent;
  }

  /** A body's end with trailer fields: its bytes as DATA, if any, then a HEADERS frame that ends the stream. */
  private ChannelFuture sendTrailers(LastHttpContent last) {
    if (last.content().isReadable()) {
      h2.write(new DefaultHttp2DataFrame(last.content().retain(), false).stream(stream));
    }
    Http2Headers fields = H2Fields.ofTrailers(last.trailingHeaders());
    last.release();
    return h2.ctx().write(new DefaultHttp2HeadersFrame(fields, true).stream(stream));
  }

  /** Frames made by {@link #rawHead}, {@link #rawBody} and {@link #continueMessage()}. */
  @Override
  public void writeRaw(Object msg) {
    if (closed) {
      ReferenceCountUtil.release(msg);
      return;
    }
    h2.write(msg);
  }

  @Override
  public void flush() {
    h2.flush();
  }

  @Override
  public boolean writable() {
    return !closed && h2.writable(windows);
  }

  @Override
  public int room() {
    return closed ? 0 : h2.room(windows);
  }

  @Override
  public String remote() {
    return connection.remote();
  }

  @Override
  public boolean secure() {
    return connection.secure();
  }

  @Override
  public boolean multiplexed() {
    return true;
  }

  @Override
  public void touch() {
    idle.touch();
    connection.touch();
  }

  /**
   * An idle-timeout tick of the connection: whether this stream has now been quiet for
   * {@code ticks} ticks in a row. The connection's other streams keep it open, so a stream whose
   * client stopped reading or sending is timed out on its own.
   */
  boolean quietFor(int ticks) {
    return idle.quietFor(ticks);
  }

  /** Stops reading this stream: its window is not given back, so the client holds the rest of its body. */
  @Override
  public void pause(int reason) {
    paused |= reason;
  }

  @Override
  public void resume(int reason) {
    paused &= ~reason;
    if (paused == 0 && unreturned > 0) {
      h2.consumed(windows, unreturned);
      unreturned = 0;
      h2.ctx().flush();
    }
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
    return new DefaultHttp2HeadersFrame(new DefaultHttp2Headers(false, 1).status(CONTINUE), false).stream(stream);
  }

  @Override
  public Object rawHead(RawResponse r, boolean http10, boolean closeClient, boolean last) {
    return new DefaultHttp2HeadersFrame(r.toHttp2(), last).stream(stream);
  }

  @Override
  public Object streamHead(Http2Headers fields, boolean last) {
    return new DefaultHttp2HeadersFrame(fields, last).stream(stream);
  }

  @Override
  public Object rawBody(ByteBuf content, boolean last) {
    return new DefaultHttp2DataFrame(content, last).stream(stream);
  }

  /**
   * Fairway's own status, as on a connection but without {@code Connection} (HTTP/2 has none).
   * With the request's body still coming, a {@code RST_STREAM(NO_ERROR)} refuses the rest once
   * the answer's last frame has left: the answer may wait for the client's window, and a reset
   * written before it would discard it (RFC 9113 §8.1).
   */
  @Override
  public boolean respond(HttpVersion version, boolean keepAlive, Failure f, long waitTimeoutMs, boolean unreadBody,
                         boolean grpc, String requestId) {
    touch();
    ChannelFuture sent = send(grpc ? f.grpcResponse(HttpVersion.HTTP_1_1, waitTimeoutMs, requestId)
        : f.response(HttpVersion.HTTP_1_1, waitTimeoutMs, requestId));
    if (unreadBody && sent != null) {
      ChannelHandlerContext ctx = h2.ctx();
      sent.addListener(done -> {
        if (done.isSuccess() && !closed) {
          ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.NO_ERROR).stream(stream));
        }
      });
    }
    flush();
    return false;
  }

  /** An {@code RST_STREAM}: the response cannot look complete. */
  @Override
  public void reset() {
    if (!closed) {
      h2.ctx().writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL).stream(stream));
    }
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
    resume(paused);
    if (gateway.draining()) {
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
