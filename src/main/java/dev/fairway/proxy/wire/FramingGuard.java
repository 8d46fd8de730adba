package dev.fairway.proxy.wire;

import dev.fairway.config.EdgeLimits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A Netty handler in front of the HTTP decoder that passes on the raw bytes of every message on
 * one connection as its {@link FrameScanner} frames them (each head checked by {@link HeadCheck}
 * before the decoder sees it, each body followed to the next head), and bounds the time a request
 * head may take.
 *
 * <p>Example: a client sends {@code "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"}.
 * The head is valid and passed on; the chunk size {@code zz} is not, so the guard stops passing
 * bytes and tells the request's exchange, which answers 400 and closes. A head that is itself
 * invalid, too large or too slow never reaches the decoder: the guard hands the decoder a stand-in
 * request (passed through the decoder untouched) whose decoder result carries the
 * {@link Failure}, and the client connection answers it.
 *
 * <p>On a backend connection ({@link #forResponses}) any fault fails the connection with a
 * {@link Rejection}, which the exchange turns into 502 (or an aborted client stream mid-body).
 */
public final class FramingGuard extends ChannelInboundHandlerAdapter {
  /** The handler name in a pipeline. */
  public static final String NAME = "fairway-framing-guard";

  private final boolean requests;
  private final EdgeLimits limits;
  private final Out out = new Out();
  private final FrameScanner scanner;
  private ScheduledFuture<?> headTimer;
  /** Whether a request head is awaited against a deadline (from its first byte, or the connection's start). */
  private boolean headDue;
  private long headDeadlineNanos;
  private ChannelHandlerContext ctx;
  private Consumer<Failure> bodyFault;

  private FramingGuard(boolean requests, EdgeLimits limits) {
    this.requests = requests;
    this.limits = limits;
    this.scanner = new FrameScanner(requests, limits, out);
  }

  /** A guard for a client connection. */
  public static FramingGuard forRequests(EdgeLimits limits) {
    return new FramingGuard(true, limits);
  }

  /** A guard for a backend connection (response heads up to {@link FrameScanner#MAX_RESPONSE_HEAD}). */
  public static FramingGuard forResponses() {
    return new FramingGuard(false, EdgeLimits.DEFAULTS);
  }

  /** Who to tell when the body of the request being forwarded turns out malformed. */
  public void bodyFault(Consumer<Failure> handler) {
    this.bodyFault = handler;
  }

  /**
   * Forgets {@code handler} if it is still the one to tell (its exchange ended), so an idle
   * connection does not keep the last exchange reachable.
   */
  public void releaseBodyFault(Consumer<Failure> handler) {
    if (bodyFault == handler) {
      bodyFault = null;
    }
  }

  /**
   * The client connection now carries another protocol (Fairway relayed a backend's
   * {@code 101 Switching Protocols}): pass every further byte through unchecked.
   */
  public void tunnel() {
    cancelHeadTimer();
    scanner.tunnel();
  }

  /**
   * Tells a backend guard that a request is about to be sent, and whether it is a {@code HEAD}
   * request (whose response has no body). Until then, any byte from the backend is stray.
   */
  public void expectResponseTo(boolean headRequest) {
    scanner.expectResponseTo(headRequest);
  }

  /**
   * Whether a backend connection may carry another request: its last response ended exactly
   * where the bytes read so far end, and nothing came after it. A {@code HEAD} answered with a
   * body, a 204 carrying one, or stray bytes after a response all make it unusable, so that they
   * are never read as the response to another client's request.
   */
  public boolean reusable() {
    return scanner.reusable();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    if (requests) {
      armHeadTimer();
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    cancelHeadTimer();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    cancelHeadTimer();
    super.channelInactive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf in)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (scanner.tunneling()) {
      ctx.fireChannelRead(in);
      return;
    }
    ByteBuf outer = out.in;
    out.in = in;
    try {
      scanner.scan(in);
    } finally {
      out.in = outer;
      in.release();
    }
  }

  /** Answers this connection with {@code f} at once, reading nothing from it (e.g. over the connection cap). */
  public void refuse(Failure f) {
    if (!scanner.stopped()) {
      scanner.stop();
      rejectHead(f);
    }
  }

  /** A head is invalid, too large or too slow: nothing of it reaches the decoder. */
  private void rejectHead(Failure f) {
    cancelHeadTimer();
    if (!requests) {
      ctx.fireExceptionCaught(new Rejection(f));
      ctx.close();
      return;
    }
    DefaultFullHttpRequest standIn = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/",
        Unpooled.EMPTY_BUFFER);
    standIn.setDecoderResult(DecoderResult.failure(new Rejection(f)));
    ctx.fireChannelRead(standIn);
    ctx.fireChannelReadComplete(); // the connection flushes what it wrote during a read when the read completes
  }

  /** The body being forwarded is malformed: stop passing bytes and tell whoever forwards it. */
  private void rejectBody(Failure f) {
    if (!requests) {
      ctx.fireExceptionCaught(new Rejection(f));
      ctx.close();
      return;
    }
    Consumer<Failure> handler = bodyFault;
    if (handler != null) {
      handler.accept(f);
    } else {
      ctx.close();
    }
  }

  /**
   * Starts the clock of a request head. One timer per connection serves every head: when it
   * fires before the current head's deadline it sets itself again for the rest, and a head that
   * completes only clears {@link #headDue}, so a keep-alive connection does not schedule and
   * cancel a timer per request.
   */
  private void armHeadTimer() {
    headDue = true;
    long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.requestHeadersTimeoutMs());
    headDeadlineNanos = System.nanoTime() + timeoutNanos;
    if (headTimer == null) {
      scheduleHeadTimer(timeoutNanos);
    }
  }

  private void scheduleHeadTimer(long delayNanos) {
    headTimer = ctx.executor().schedule(() -> {
      headTimer = null;
      if (!scanner.betweenBodies() || !headDue) {
        return;
      }
      long left = headDeadlineNanos - System.nanoTime();
      if (left > 0) {
        scheduleHeadTimer(left);
      } else {
        scanner.stop();
        rejectHead(Failure.REQUEST_TIMEOUT);
      }
    }, delayNanos, TimeUnit.NANOSECONDS);
  }

  private void cancelHeadTimer() {
    headDue = false;
    if (headTimer != null) {
      headTimer.cancel(false);
      headTimer = null;
    }
  }

  /** For logs and tests. */
  @Override
  public String toString() {
    return "FramingGuard[" + scanner + "]";
  }

  /** Turns the scanner's events into reads down the pipeline. */
  private final class Out implements FrameScanner.Sink {
    /** The buffer being scanned. */
    private ByteBuf in;

    @Override
    public void bytes(int from, int to) {
      ctx.fireChannelRead(in.retainedSlice(from, to - from));
    }

    @Override
    public void head(byte[] buf, int length) {
      ctx.fireChannelRead(Unpooled.copiedBuffer(buf, 0, length));
    }

    @Override
    public void chunkSize(long size) {
      ctx.fireChannelRead(Unpooled.copiedBuffer(Long.toHexString(size) + "\r\n", StandardCharsets.US_ASCII));
    }

    @Override
    public void request(RawRequest request) {
      ctx.fireChannelRead(request);
    }

    @Override
    public void response(RawResponse response) {
      ctx.fireChannelRead(response);
    }

    @Override
    public void body(int from, int to, boolean last) {
      ctx.fireChannelRead(new RawBody(in.retainedSlice(from, to - from), last));
    }

    @Override
    public void headStarted() {
      if (!headDue) {
        armHeadTimer();
      }
    }

    @Override
    public void headEnded() {
      headDue = false;
    }

    @Override
    public void headFault(Failure f) {
      rejectHead(f);
    }

    @Override
    public void bodyFault(Failure f) {
      rejectBody(f);
    }
  }
}
