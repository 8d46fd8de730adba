package dev.fairway.proxy.wire;

import dev.fairway.config.EdgeLimits;
import dev.fairway.proxy.ClientConnection;
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
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A Netty handler in front of the HTTP decoder that reads the raw bytes of every message on one
 * connection, checks each head with {@link HeadCheck} before the decoder sees it, follows the
 * body's framing (fixed length or chunks, whose sizes it checks) to find the next head, and
 * bounds the time a request head may take.
 *
 * <p>Example: a client sends {@code "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"}.
 * The head is valid and passed on; the chunk size {@code zz} is not, so the guard stops passing
 * bytes and tells the request's exchange, which answers 400 and closes. A head that is itself
 * invalid, too large or too slow never reaches the decoder: the guard hands the decoder a stand-in
 * request (passed through the decoder untouched) whose decoder result carries the
 * {@link Failure}, and the {@link ClientConnection} answers it.
 *
 * <p>On a backend connection ({@link #forResponses}) any fault fails the connection with a
 * {@link Rejection}, which the exchange turns into 502 (or an aborted client stream mid-body).
 */
public final class FramingGuard extends ChannelInboundHandlerAdapter {
  /** The handler name in a pipeline. */
  public static final String NAME = "fairway-framing-guard";
  private static final int MAX_CHUNK_LINE = 4096;
  /** Head bytes copied and scanned at a time: most heads fit in one block. */
  private static final int HEAD_BLOCK = 2048;
  /** Per event-loop thread: the array heads are scanned in (grown as needed, never shrunk). */
  private static final ThreadLocal<byte[][]> SCRATCH = ThreadLocal.withInitial(() -> new byte[][] {new byte[4096]});
  /** The most bytes of a backend's response head (the upstream client's own limit is the same). */
  static final int MAX_RESPONSE_HEAD = 64 * 1024;

  private enum State { HEAD, FIXED, CHUNK_SIZE, CHUNK_DATA, CHUNK_CR, CHUNK_LF, TRAILERS, TUNNEL, DEAD }

  private final boolean requests;
  private final EdgeLimits limits;
  private final int headLimit;
  private State state = State.HEAD;
  /**
   * The head read so far, kept only while a head spans reads; {@code null} otherwise, so an idle
   * connection holds no head buffer (heads are scanned in a per-thread {@link #SCRATCH} array).
   */
  private byte[] head;
  private int headLength;
  private int lineStart;
  /** Where the field lines of the head begin; -1 while in the start line. */
  private int fieldsStart = -1;
  private long remaining;
  private final StringBuilder line = new StringBuilder();
  /**
   * Where the chunk-size line being read begins in the buffer being scanned; -1 if it began in an
   * earlier read (its bytes are then held in {@link #line}, never passed on as they came).
   */
  private int lineFrom = -1;
  private int trailerBytes;
  private ScheduledFuture<?> headTimer;
  /** Whether a request head is awaited against a deadline (from its first byte, or the connection's start). */
  private boolean headDue;
  private long headDeadlineNanos;
  /**
   * Where in the buffer being scanned the head just checked begins, when all of it is in that
   * buffer: it is then passed on in place with what follows, not copied; -1 otherwise.
   */
  private int headInPlace = -1;
  /** Where the head being read begins in the buffer being scanned; -1 if it began in an earlier one. */
  private int headBegin = -1;
  private ChannelHandlerContext ctx;
  private Consumer<Failure> bodyFault;
  private boolean nextIsHeadResponse;
  /** On a backend connection: a request was sent whose final response has not ended yet. */
  private boolean awaiting;
  /**
   * On a backend connection: bytes came after a final response ended (in the same read, or while
   * no response was awaited), so the connection must never carry another request.
   */
  private boolean leftover;
  /** The end of the buffer being scanned. */
  private int scanEnd;
  /** The body being passed belongs to a {@link RawResponse}: its parts go on as {@link RawBody}. */
  private boolean raw;

  private FramingGuard(boolean requests, EdgeLimits limits) {
    this.requests = requests;
    this.limits = limits;
    this.headLimit = requests ? limits.maxRequestLineBytes() + 2 + limits.maxHeaderBytes() + 2 : MAX_RESPONSE_HEAD;
  }

  /** A guard for a client connection. */
  public static FramingGuard forRequests(EdgeLimits limits) {
    return new FramingGuard(true, limits);
  }

  /** A guard for a backend connection (response heads up to {@link #MAX_RESPONSE_HEAD}). */
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
    state = State.TUNNEL;
  }

  /**
   * Tells a backend guard that a request is about to be sent, and whether it is a {@code HEAD}
   * request (whose response has no body). Until then, any byte from the backend is stray.
   */
  public void expectResponseTo(boolean headRequest) {
    this.nextIsHeadResponse = headRequest;
    this.awaiting = true;
  }

  /**
   * Whether a backend connection may carry another request: its last response ended exactly
   * where the bytes read so far end, and nothing came after it. A {@code HEAD} answered with a
   * body, a 204 carrying one, or stray bytes after a response all make it unusable, so that they
   * are never read as the response to another client's request.
   */
  public boolean reusable() {
    return !leftover && !awaiting && state == State.HEAD && headLength == 0;
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
    if (state == State.TUNNEL) {
      ctx.fireChannelRead(in);
      return;
    }
    try {
      scan(ctx, in);
    } finally {
      in.release();
    }
  }

  /** Walks {@code in}, passing on each checked range and holding back each head until checked. */
  private void scan(ChannelHandlerContext ctx, ByteBuf in) {
    int i = in.readerIndex();
    int end = in.writerIndex();
    scanEnd = end;
    int passFrom = i;
    while (i < end && state != State.DEAD) {
      switch (state) {
        case HEAD -> {
          pass(ctx, in, passFrom, i);
          if (!requests && !awaiting) {
            leftover = true;
            rejectHead(Failure.BAD_RESPONSE); // a backend talking out of turn
            return;
          }
          headInPlace = -1;
          int consumed = readHead(ctx, in, i, end);
          i += consumed;
          passFrom = headInPlace >= 0 ? headInPlace : i;
        }
        case FIXED -> {
          int n = (int) Math.min(remaining, end - i);
          boolean rawPart = raw;
          int from = i;
          i += n;
          remaining -= n;
          if (remaining == 0) {
            toHead(); // before the last part goes on: whoever takes it may ask reusable()
            if (rawPart) {
              finalEnded(i);
            }
          }
          if (rawPart) {
            ctx.fireChannelRead(new RawBody(in.retainedSlice(from, n), remaining == 0));
            passFrom = i;
          }
        }
        case CHUNK_DATA -> {
          int n = (int) Math.min(remaining, end - i);
          i += n;
          remaining -= n;
          if (remaining == 0) {
            state = State.CHUNK_CR;
          }
        }
        case CHUNK_CR, CHUNK_LF -> {
          byte b = in.getByte(i++);
          if (state == State.CHUNK_CR && b == '\r') {
            state = State.CHUNK_LF;
          } else if (state == State.CHUNK_LF && b == '\n') {
            state = State.CHUNK_SIZE;
          } else {
            pass(ctx, in, passFrom, i - 1);
            bodyFault(ctx);
            return;
          }
        }
        case CHUNK_SIZE, TRAILERS -> {
          if (state == State.CHUNK_SIZE && line.length() == 0) {
            lineFrom = i;
          }
          byte b = in.getByte(i++);
          if (b != '\n') {
            line.append((char) (b & 0xff));
            if (line.length() > MAX_CHUNK_LINE || (state == State.TRAILERS && ++trailerBytes > limits.maxHeaderBytes())) {
              pass(ctx, in, passFrom, lineStart(passFrom));
              bodyFault(ctx);
              return;
            }
            continue;
          }
          if (line.length() == 0 || line.charAt(line.length() - 1) != '\r') {
            pass(ctx, in, passFrom, lineStart(passFrom));
            bodyFault(ctx);
            return;
          }
          String text = line.substring(0, line.length() - 1);
          line.setLength(0);
          if (state == State.TRAILERS) {
            if (text.isEmpty()) {
              toHead();
              if (!requests) {
                finalEnded(i);
              }
            } else if (!isTrailer(text)) {
              pass(ctx, in, passFrom, i - 1 - text.length() - 1);
              bodyFault(ctx);
              return;
            }
            continue;
          }
          long size = ChunkLine.size(text);
          if (size < 0) {
            pass(ctx, in, passFrom, lineStart(passFrom));
            bodyFault(ctx);
            return;
          }
          if (lineFrom < 0 || !ChunkLine.plain(text)) {
            // the decoder gets the size alone: it reads extensions and whitespace otherwise than the RFC
            pass(ctx, in, passFrom, lineStart(passFrom));
            ctx.fireChannelRead(Unpooled.copiedBuffer(Long.toHexString(size) + "\r\n", StandardCharsets.US_ASCII));
            passFrom = i;
          }
          lineFrom = -1;
          if (size == 0) {
            state = State.TRAILERS;
            trailerBytes = 0;
          } else {
            remaining = size;
            state = State.CHUNK_DATA;
          }
        }
        case TUNNEL -> {
          i = end;
        }
        default -> throw new IllegalStateException(state.name());
      }
    }
    if (state == State.CHUNK_SIZE && line.length() > 0) {
      pass(ctx, in, passFrom, lineStart(passFrom)); // a chunk-size line goes on once whole (see above)
      lineFrom = -1;
    } else if (state != State.DEAD) {
      pass(ctx, in, passFrom, i);
    }
  }

  /** Where the chunk-size line being read begins in the buffer being scanned; {@code from} if it began earlier. */
  private int lineStart(int from) {
    return lineFrom >= 0 ? Math.max(from, lineFrom) : from;
  }

  /** A trailer field line: a token, a colon, a value without control characters but HTAB. */
  private static boolean isTrailer(String text) {
    int colon = text.indexOf(':');
    if (colon <= 0 || !HeadCheck.isToken(text.substring(0, colon))) {
      return false;
    }
    for (int k = colon + 1; k < text.length(); k++) {
      char c = text.charAt(k);
      if (c < 0x20 && c != '\t' || c == 0x7f) {
        return false;
      }
    }
    return true;
  }

  private static void pass(ChannelHandlerContext ctx, ByteBuf in, int from, int to) {
    if (to > from) {
      ctx.fireChannelRead(in.retainedSlice(from, to - from));
    }
  }

  /**
   * Collects head bytes from {@code start}; returns how many it took. Copies them a block at a
   * time into {@link #head} and scans the copy (cheaper than a bounds-checked read per byte).
   */
  private int readHead(ChannelHandlerContext ctx, ByteBuf in, int start, int end) {
    int i = start;
    if (headLength == 0) {
      while (i < end && (in.getByte(i) == '\r' || in.getByte(i) == '\n')) {
        i++; // empty lines before a start line are ignored (RFC 9112 §2.2)
      }
      if (i == end) {
        return i - start;
      }
      if (requests && !headDue) {
        armHeadTimer();
      }
      headBegin = i;
    } else {
      headBegin = -1;
    }
    byte[][] scratch = head == null ? SCRATCH.get() : null;
    byte[] buf = head != null ? head : scratch[0];
    while (i < end) {
      int n = Math.min(Math.min(end - i, HEAD_BLOCK), headLimit + 1 - headLength);
      if (headLength + n > buf.length) {
        byte[] bigger = new byte[Math.min(Math.max(buf.length * 2, headLength + n), Math.max(headLimit + 1, buf.length))];
        System.arraycopy(buf, 0, bigger, 0, headLength);
        buf = bigger;
        if (scratch != null) {
          scratch[0] = bigger;
        } else {
          head = bigger;
        }
      }
      in.getBytes(i, buf, headLength, n);
      int offset = i - headLength; // the byte at buf[k] is in's byte at offset + k
      int k = headLength;
      int stop = k + n;
      int limitAt = limitAt();
      while (k < stop) {
        byte b = buf[k++];
        if (b == '\n') {
          headLength = k;
          if (k < 2 || buf[k - 2] != '\r') {
            rejectHead(requests ? Failure.MALFORMED_REQUEST : Failure.BAD_RESPONSE); // bare LF
            return offset + k - start;
          }
          int lineLength = k - lineStart;
          lineStart = k;
          if (fieldsStart < 0) {
            fieldsStart = k;
            limitAt = limitAt();
          }
          if (lineLength <= 2 && k >= 4 && buf[k - 2] == '\r' && buf[k - 3] == '\n') {
            headComplete(ctx, buf, offset + k);
            return offset + k - start;
          }
        }
        if (k >= limitAt) {
          headLength = k;
          if (tooLarge()) {
            return offset + k - start;
          }
        }
      }
      headLength = k;
      i = offset + k;
    }
    if (scratch != null) {
      // The read ended inside the head: keep what came so far for the next read.
      head = Arrays.copyOf(buf, Math.min(headLimit + 1, Math.max(1024, headLength * 2)));
    }
    return i - start;
  }

  /** The head length from which {@link #tooLarge} may hold: below it, no limit is reached. */
  private int limitAt() {
    int at = headLimit;
    if (requests) {
      at = Math.min(at, fieldsStart < 0 ? limits.maxRequestLineBytes() + 3 : fieldsStart + limits.maxHeaderBytes() + 3);
    }
    return at;
  }

  /** Enforces the request line and head limits while the head is still arriving. */
  private boolean tooLarge() {
    boolean inStartLine = fieldsStart < 0;
    if (requests && inStartLine && headLength > limits.maxRequestLineBytes() + 2) {
      rejectHead(Failure.URI_TOO_LONG);
      return true;
    }
    if (headLength >= headLimit || (requests && !inStartLine && headLength - fieldsStart > limits.maxHeaderBytes() + 2)) {
      rejectHead(requests ? Failure.HEADERS_TOO_LARGE : Failure.BAD_RESPONSE);
      return true;
    }
    return false;
  }

  /** @param after where the bytes after the head begin in the buffer being scanned */
  private void headComplete(ChannelHandlerContext ctx, byte[] buf, int after) {
    headDue = false;
    HeadCheck.Verdict v = requests ? HeadCheck.request(buf, headLength, limits)
        : HeadCheck.response(buf, headLength, nextIsHeadResponse);
    if (requests && v.ok() && headLength - fieldsStart > limits.maxHeaderBytes() + 2) {
      v = HeadCheck.Verdict.fail(Failure.HEADERS_TOO_LARGE);
    }
    if (!v.ok()) {
      rejectHead(v.failure());
      return;
    }
    int headBytes = headLength;
    headLength = 0;
    lineStart = 0;
    fieldsStart = -1;
    head = null;
    long length = v.bodyLength();
    if (requests && length == 0 && !v.upgrade()) {
      toHead();
      ctx.fireChannelRead(new RawRequest(Arrays.copyOf(buf, headBytes))); // past Netty's decoder
      return;
    }
    if (!requests && v.status() >= 200 && length >= 0) {
      // a final response framed by its length (or without a body): past Netty's decoder, its body as RawBody parts
      toHead();
      if (length > 0) {
        raw = true;
        remaining = length;
        state = State.FIXED;
      } else {
        finalEnded(after);
      }
      ctx.fireChannelRead(new RawResponse(buf, headBytes, v.status(), length));
      return;
    }
    if (headBegin >= 0) {
      headInPlace = headBegin;
    } else {
      ctx.fireChannelRead(Unpooled.copiedBuffer(buf, 0, headBytes));
    }
    if (!requests && v.status() == 101) {
      state = State.TUNNEL; // an upgraded connection carries another protocol
      return;
    }
    if (!requests && v.status() < 200) {
      toHead();
      return;
    }
    if (length == HeadCheck.CHUNKED) {
      state = State.CHUNK_SIZE;
      line.setLength(0);
    } else if (length == HeadCheck.UNTIL_CLOSE) {
      state = State.TUNNEL;
    } else if (length > 0) {
      remaining = length;
      state = State.FIXED;
    } else {
      toHead();
    }
  }

  /** A final response ended at {@code at} in the buffer being scanned: whatever follows is stray. */
  private void finalEnded(int at) {
    awaiting = false;
    if (at < scanEnd) {
      leftover = true;
    }
  }

  private void toHead() {
    raw = false;
    state = State.HEAD;
    headLength = 0;
    lineStart = 0;
    fieldsStart = -1;
  }

  /** Answers this connection with {@code f} at once, reading nothing from it (e.g. over the connection cap). */
  public void refuse(Failure f) {
    if (state != State.DEAD) {
      rejectHead(f);
    }
  }

  /** A head is invalid, too large or too slow: nothing of it reaches the decoder. */
  private void rejectHead(Failure f) {
    state = State.DEAD;
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
  private void bodyFault(ChannelHandlerContext ctx) {
    state = State.DEAD;
    Rejection r = new Rejection(requests ? Failure.MALFORMED_REQUEST : Failure.BAD_RESPONSE);
    if (!requests) {
      ctx.fireExceptionCaught(r);
      ctx.close();
      return;
    }
    Consumer<Failure> handler = bodyFault;
    if (handler != null) {
      handler.accept(r.failure());
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
      if (state != State.HEAD || !headDue) {
        return;
      }
      long left = headDeadlineNanos - System.nanoTime();
      if (left > 0) {
        scheduleHeadTimer(left);
      } else {
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
    String kept = head == null ? "" : new String(head, 0, Math.min(headLength, 64), StandardCharsets.ISO_8859_1);
    return "FramingGuard[" + state + ", head=" + kept + "]";
  }
}
