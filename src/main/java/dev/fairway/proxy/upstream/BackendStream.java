package dev.fairway.proxy.upstream;

import dev.fairway.proxy.wire.ClientRequest;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.proxy.wire.H2Fields;
import dev.fairway.proxy.wire.Rejection;
import dev.fairway.proxy.wire.StreamWriter;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;

/**
 * One HTTP/2 stream to a backend, for one exchange: no channel of its own, its {@link H2Link}
 * hands it its frames and events. The request's HTTP objects become frames here, the response's
 * frames HTTP objects ({@link ResponseFrames}), but for a client's HTTP/2 stream, which is
 * given the HEADERS frames themselves; the response's DATA is given back to the
 * backend's window as it is read, and held back while the exchange's client cannot take more.
 *
 * <p>Example: a gRPC call's head goes out as HEADERS (the stream gets id 5), its message as DATA
 * with END_STREAM; the backend's HEADERS {@code :status 200} reach the exchange as an
 * {@code HttpResponse}, its DATA as {@code HttpContent}, its trailers as a
 * {@code LastHttpContent}, and then the codec closes stream 5: the link has room for one more.
 */
final class BackendStream implements Upstream, StreamWriter {
  private final H2Link link;
  private final Http2FrameStream stream;
  /** The codec's state of the stream (windows, state) once its HEADERS went out. */
  private Http2Stream windows;
  private UpstreamUser exchange;
  /** The exchange's client is an HTTP/2 stream: it is given the response's HEADERS frames as they are. */
  private boolean toStream;
  private boolean unprocessed;
  private Throwable cause;
  /** The backend ended its side (a frame with END_STREAM came). */
  private boolean inboundEnded;
  /** No more frames are written: closing or closed. */
  private boolean closing;
  /** Closed, and its link told. */
  private boolean closed;
  /** Reading stopped: the DATA read is not given back to the backend's window yet. */
  private boolean paused;
  private int unreturned;
  /** Given frames in the link's read under way. */
  boolean inRead;

  BackendStream(H2Link link, Http2FrameStream stream) {
    this.link = link;
    this.stream = stream;
  }

  @Override
  public boolean multiplexed() {
    return true;
  }

  @Override
  public void expectResponseTo(boolean headRequest) {
  }

  @Override
  public boolean poolable() {
    return false;
  }

  @Override
  public boolean reused() {
    return false;
  }

  @Override
  public boolean unprocessed() {
    return unprocessed;
  }

  @Override
  public Throwable cause() {
    return cause;
  }

  @Override
  public void fail(Throwable why) {
    cause = why;
    close();
  }

  @Override
  public void attach(UpstreamUser e, boolean toStream) {
    exchange = e;
    this.toStream = toStream;
  }

  @Override
  public void detach() {
    exchange = null;
  }

  @Override
  public Channel socket() {
    return null;
  }

  @Override
  public boolean sendHead(ClientRequest request) {
    return request.writeToStream(this);
  }

  @Override
  public boolean secure() {
    return link.secure();
  }

  /**
   * A HEADERS frame, Netty's {@code HttpRequest} (with {@code :scheme} of the connection) or a body
   * part: as this stream's frames, as Netty's {@code Http2StreamFrameToHttpObjectCodec} writes
   * them. The first HEADERS opens the stream.
   */
  @Override
  public void write(Object msg) {
    if (closing) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof Http2HeadersFrame f) {
      headers(f.headers(), f.isEndStream());
    } else if (msg instanceof HttpRequest r) {
      Http2Headers h = H2Fields.ofRequest(r, secure());
      if (h == null) { // an absolute-form target, say: Netty's conversion takes the authority from it
        r.headers().set(HttpConversionUtil.ExtensionHeaderNames.SCHEME.text(), secure() ? "https" : "http");
        h = HttpConversionUtil.toHttp2Headers(r, false);
      }
      ReferenceCountUtil.release(r);
      headers(h, false);
    } else if (msg instanceof LastHttpContent last) {
      boolean trailers = !last.trailingHeaders().isEmpty();
      if (last.content().isReadable() || !trailers) {
        link.write(new DefaultHttp2DataFrame(last.content(), !trailers).stream(stream));
      } else {
        last.release();
      }
      if (trailers) {
        headers(H2Fields.ofTrailers(last.trailingHeaders()), true);
      }
    } else if (msg instanceof HttpContent c) {
      link.write(new DefaultHttp2DataFrame(c.content(), false).stream(stream));
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  private void headers(Http2Headers h, boolean endStream) {
    boolean first = windows == null && stream.id() <= 0;
    if (first && !link.active()) {
      unprocessed = true;
      cause = new IOException("the backend closed the HTTP/2 connection");
      closeNow();
      return;
    }
    ChannelFuture sent = link.write(new DefaultHttp2HeadersFrame(h, endStream).stream(stream));
    if (!first) {
      return;
    }
    int id = stream.id();
    windows = id > 0 ? link.codecStream(id) : null;
    if (windows == null || windows.state() == Http2Stream.State.CLOSED) {
      // refused by the codec (no ids left, GOAWAY received) or its write failed at once: nothing
      // reached the backend, and no closed event will come for it
      unprocessed = true;
      cause = sent.cause() != null ? sent.cause() : new IOException("the backend's connection took no new stream");
      closeNow();
      return;
    }
    link.opened(this, id);
  }

  @Override
  public void flush() {
    link.flush();
  }

  @Override
  public boolean writable() {
    return !closing && link.writable(windows);
  }

  /** Stops giving read DATA back to the backend's window (it stops sending at the window's end), or gives it all back. */
  @Override
  public void autoRead(boolean on) {
    paused = !on;
    if (on && unreturned > 0) {
      link.consumed(windows, unreturned);
      unreturned = 0;
      link.flush();
    }
  }

  /** Resets the stream ({@code CANCEL}) unless the backend's side ended; the exchange still attached hears of it. */
  @Override
  public void close() {
    if (closing) {
      return;
    }
    closing = true;
    if (windows == null || !link.active() || windows.state() == Http2Stream.State.CLOSED) {
      closeNow();
    } else if (!inboundEnded || windows.state() != Http2Stream.State.HALF_CLOSED_LOCAL) {
      link.write(new DefaultHttp2ResetFrame(Http2Error.CANCEL).stream(stream));
      link.flush(); // the codec closes the stream once the reset is written: closed() follows
    }
  }

  /** Closed without waiting for the codec: it will not tell (the stream never opened or is gone). */
  private void closeNow() {
    closing = true;
    closed();
  }

  /** A HEADERS, DATA or RST_STREAM frame of this stream. */
  void onFrame(Object msg) {
    if (msg instanceof Http2DataFrame f) {
      inboundEnded |= f.isEndStream();
      int bytes = f.initialFlowControlledBytes();
      if (paused) {
        unreturned += bytes;
      } else {
        link.consumed(windows, bytes);
      }
      UpstreamUser e = exchange;
      if (e == null || closing) {
        f.release();
        return;
      }
      e.fromUpstream(ResponseFrames.body(f));
    } else if (msg instanceof Http2HeadersFrame f) {
      inboundEnded |= f.isEndStream();
      UpstreamUser e = exchange;
      if (e == null || closing) {
        return;
      }
      Object head;
      try {
        head = toStream ? ResponseFrames.checked(stream.id(), f) : ResponseFrames.head(stream.id(), f.headers(), f.isEndStream());
      } catch (Exception ex) {
        fail(ex);
        return;
      }
      if (head == null) {
        fail(new Rejection(Failure.BAD_RESPONSE));
        return;
      }
      e.fromUpstream(head);
    } else if (msg instanceof Http2ResetFrame r) {
      if (r.errorCode() == Http2Error.REFUSED_STREAM.code()) {
        unprocessed = true;
        cause = new IOException("stream refused by the backend");
      } else if (cause == null) {
        cause = new IOException("stream reset by the backend: " + Http2Error.valueOf(r.errorCode()));
      }
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  /** The link's read is over: what was relayed to the client goes out. */
  void readComplete() {
    UpstreamUser e = exchange;
    if (e != null) {
      e.flushToClient();
    }
  }

  /** The backend's window for this stream (or the connection's buffer) opened or closed. */
  void writabilityChanged() {
    UpstreamUser e = exchange;
    if (e != null && writable()) {
      e.upstreamWritable();
    }
  }

  /** The codec found an error on this stream and reset it; {@link #closed} follows. */
  void failed(Throwable why) {
    if (cause == null) {
      cause = why;
    }
  }

  /**
   * The stream is over (the codec closed it, or it never opened, or its connection closed): its
   * link gets its room back, and an exchange still attached hears of it after what it is doing now.
   */
  void closed() {
    if (closed) {
      return;
    }
    closed = true;
    closing = true;
    int id = stream.id();
    if (id > 0 && link.aboveGoAway(id)) {
      unprocessed = true;
      cause = new IOException("stream above the backend's GOAWAY last stream id");
    }
    link.streamClosed(id);
    UpstreamUser e = exchange;
    exchange = null;
    if (e != null) {
      link.later(() -> e.upstreamClosed(this));
    }
  }
}
