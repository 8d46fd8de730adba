package dev.fairway.proxy.wire;

import dev.fairway.config.EdgeLimits;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Frames the HTTP/1.1 messages of one connection's byte stream: finds each head, checks it with
 * {@link HeadCheck}, follows its body (fixed length, or chunks whose lines it checks) to the next
 * head, and tells a {@link Sink} what to pass on. No I/O: {@link FramingGuard} puts it on a channel.
 *
 * <p>Example: scanning the requests {@code "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi"}
 * then {@code "GET / HTTP/1.1\r\nHost: a\r\n\r\n"} in one buffer tells the sink {@code headStarted},
 * {@code headEnded}, {@code bytes(0, 49)} (the first head and its body, in place), {@code headStarted},
 * {@code headEnded}, {@code request(GET /)} (the bodiless head, checked, as a {@link RawRequest}). With
 * {@code "zz\r\n"} as a chunk size, the sink gets the head's bytes, then {@code bodyFault(MALFORMED_REQUEST)},
 * and the scanner is dead.
 */
final class FrameScanner {
  private static final int MAX_CHUNK_LINE = 4096;
  /** The most bytes of a backend's response head (the upstream client's own limit is the same). */
  static final int MAX_RESPONSE_HEAD = 64 * 1024;

  /**
   * Where the scanned bytes go. Offsets are in the buffer being scanned; the scanner is dead
   * after either fault.
   */
  interface Sink {
    /** Bytes {@code [from, to)} go on as they came. */
    void bytes(int from, int to);

    /** A checked head that began in an earlier buffer: {@code buf[0, length)} goes on (copy it: {@code buf} is reused). */
    void head(byte[] buf, int length);

    /** A chunk-size line held back (split over reads, or with extensions or whitespace) goes on as {@code hex CRLF}. */
    void chunkSize(long size);

    /** A checked request head without a body: it goes past the decoder. */
    void request(RawRequest request);

    /** A checked final response framed by its length: it goes past the decoder, its body as {@link #body} parts. */
    void response(RawResponse response);

    /** Bytes {@code [from, to)} are a part of a {@link RawResponse}'s body; {@code last} if it ends there. */
    void body(int from, int to, boolean last);

    /** A request head begins: its time starts. */
    void headStarted();

    /** The head is whole: its time no longer counts. */
    void headEnded();

    /** A head is invalid or too large, or a backend spoke out of turn: nothing of it went on. */
    void headFault(Failure f);

    /** A body is malformed: the bytes before the fault went on. */
    void bodyFault(Failure f);
  }

  private enum State { HEAD, FIXED, CHUNK_SIZE, CHUNK_DATA, CHUNK_CR, CHUNK_LF, TRAILERS, TUNNEL, DEAD }

  private final boolean requests;
  private final EdgeLimits limits;
  private final HeadReader heads;
  private final Sink sink;
  private State state = State.HEAD;
  private long remaining;
  private final StringBuilder line = new StringBuilder();
  /** Where the chunk-size line being read begins in the buffer; -1 if in an earlier one (then held in {@link #line}). */
  private int lineFrom = -1;
  private int trailerBytes;
  /** Where the head just checked begins in the buffer, when all of it is there (it goes on in place); -1 otherwise. */
  private int headInPlace = -1;
  private boolean nextIsHeadResponse;
  /** On a backend connection: a request was sent whose final response has not ended yet. */
  private boolean awaiting;
  /** On a backend connection: bytes came after a final response ended, so it must carry no other request. */
  private boolean leftover;
  /** The end of the buffer being scanned. */
  private int scanEnd;
  /** The body being passed belongs to a {@link RawResponse}: its parts go to {@link Sink#body}. */
  private boolean raw;

  /**
   * @param requests whether the stream carries requests (a client's) or responses (a backend's)
   * @param limits   the request line and header limits (responses: {@link #MAX_RESPONSE_HEAD})
   */
  FrameScanner(boolean requests, EdgeLimits limits, Sink sink) {
    this.requests = requests;
    this.limits = limits;
    this.sink = sink;
    this.heads = new HeadReader(requests, limits);
  }

  /** Every further byte belongs to another protocol: {@link #scan} must not be called again. */
  void tunnel() {
    state = State.TUNNEL;
  }

  boolean tunneling() {
    return state == State.TUNNEL;
  }

  /** Stops: nothing more is scanned (the connection is being answered or closed). */
  void stop() {
    state = State.DEAD;
  }

  boolean stopped() {
    return state == State.DEAD;
  }

  /** Whether a head (or the space between messages) is being read. */
  boolean betweenBodies() {
    return state == State.HEAD;
  }

  /** A request is about to be sent to the backend; {@code headRequest}: its response has no body. */
  void expectResponseTo(boolean headRequest) {
    this.nextIsHeadResponse = headRequest;
    this.awaiting = true;
  }

  /** Whether the last response ended where the bytes so far end, with nothing after it: see {@link FramingGuard#reusable}. */
  boolean reusable() {
    return !leftover && !awaiting && state == State.HEAD && heads.length() == 0;
  }

  /** Scans {@code in}'s readable bytes (without moving its reader index), telling the sink what goes on. */
  void scan(ByteBuf in) {
    int i = in.readerIndex();
    int end = in.writerIndex();
    scanEnd = end;
    int passFrom = i;
    while (i < end && state != State.DEAD) {
      switch (state) {
        case HEAD -> {
          pass(passFrom, i);
          if (!requests && !awaiting) {
            leftover = true;
            headFault(Failure.BAD_RESPONSE); // a backend talking out of turn
            return;
          }
          headInPlace = -1;
          i += heads.read(in, i, end);
          if (requests && heads.begin() >= 0) {
            sink.headStarted();
          }
          if (heads.failure() != null) {
            headFault(heads.failure());
            return;
          }
          if (heads.complete()) {
            headComplete(i);
          }
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
            sink.body(from, i, remaining == 0);
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
            pass(passFrom, i - 1);
            bodyFault();
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
              pass(passFrom, lineStart(passFrom));
              bodyFault();
              return;
            }
            continue;
          }
          if (line.length() == 0 || line.charAt(line.length() - 1) != '\r') {
            pass(passFrom, lineStart(passFrom));
            bodyFault();
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
            } else if (!ChunkLine.isTrailer(text)) {
              pass(passFrom, i - 1 - text.length() - 1);
              bodyFault();
              return;
            }
            continue;
          }
          long size = ChunkLine.size(text);
          if (size < 0) {
            pass(passFrom, lineStart(passFrom));
            bodyFault();
            return;
          }
          if (lineFrom < 0 || !ChunkLine.plain(text)) {
            // the decoder gets the size alone: it reads extensions and whitespace otherwise than the RFC
            pass(passFrom, lineStart(passFrom));
            sink.chunkSize(size);
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
        case TUNNEL -> i = end;
        default -> throw new IllegalStateException(state.name());
      }
    }
    if (state == State.CHUNK_SIZE && line.length() > 0) {
      pass(passFrom, lineStart(passFrom)); // a chunk-size line goes on once whole (see above)
      lineFrom = -1;
    } else if (state != State.DEAD) {
      pass(passFrom, i);
    }
  }

  /** Where the chunk-size line being read begins in the buffer; {@code from} if it began earlier. */
  private int lineStart(int from) {
    return lineFrom >= 0 ? Math.max(from, lineFrom) : from;
  }

  private void pass(int from, int to) {
    if (to > from) {
      sink.bytes(from, to);
    }
  }

  /** @param after where the bytes after the head begin in the buffer */
  private void headComplete(int after) {
    sink.headEnded();
    byte[] buf = heads.bytes();
    int headBytes = heads.length();
    HeadCheck.Verdict v = requests ? HeadCheck.request(buf, headBytes, limits)
        : HeadCheck.response(buf, headBytes, nextIsHeadResponse);
    if (requests && v.ok() && heads.fieldBytes() > limits.maxHeaderBytes() + 2) {
      v = HeadCheck.Verdict.fail(Failure.HEADERS_TOO_LARGE);
    }
    if (!v.ok()) {
      headFault(v.failure());
      return;
    }
    int begin = heads.begin();
    heads.clear();
    long length = v.bodyLength();
    if (requests && length == 0 && !v.upgrade()) {
      toHead();
      sink.request(new RawRequest(Arrays.copyOf(buf, headBytes))); // past Netty's decoder
      return;
    }
    if (!requests && v.status() >= 200 && length >= 0) {
      toHead();
      if (length > 0) {
        raw = true;
        remaining = length;
        state = State.FIXED;
      } else {
        finalEnded(after);
      }
      sink.response(new RawResponse(buf, headBytes, v.status(), length));
      return;
    }
    if (begin >= 0) {
      headInPlace = begin;
    } else {
      sink.head(buf, headBytes);
    }
    if (!requests && v.status() == 101) {
      state = State.TUNNEL; // an upgraded connection carries another protocol
    } else if (!requests && v.status() < 200) {
      toHead();
    } else if (length == HeadCheck.CHUNKED) {
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

  /** A final response ended at {@code at} in the buffer: whatever follows is stray. */
  private void finalEnded(int at) {
    awaiting = false;
    if (at < scanEnd) {
      leftover = true;
    }
  }

  private void toHead() {
    raw = false;
    state = State.HEAD;
    heads.clear();
  }

  private void headFault(Failure f) {
    state = State.DEAD;
    sink.headFault(f);
  }

  private void bodyFault() {
    state = State.DEAD;
    sink.bodyFault(requests ? Failure.MALFORMED_REQUEST : Failure.BAD_RESPONSE);
  }

  /** The state and the start of a head kept across reads, for logs and tests. */
  @Override
  public String toString() {
    return state + ", head=" + heads;
  }
}
