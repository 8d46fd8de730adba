package dev.fairway.proxy.wire;

import dev.fairway.config.EdgeLimits;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Collects one message head, read by read, up to its blank line, and enforces the size limits
 * while it arrives; {@link HeadCheck} then checks it whole. Part of {@link FrameScanner}.
 *
 * <p>Example: reading {@code "\r\nGET / HTTP/1.1\r\nHo"} takes all 20 bytes (the empty line is
 * skipped, the rest kept); reading {@code "st: a\r\n\r\nmore"} next takes 9, after which
 * {@link #complete()} holds and {@code bytes()[0, length())} is {@code "GET / HTTP/1.1\r\nHost: a\r\n\r\n"}.
 * A bare LF, a request line over the limit or too many header bytes set {@link #failure()} instead.
 */
final class HeadReader {
  /** Head bytes copied and scanned at a time: most heads fit in one block. */
  private static final int HEAD_BLOCK = 2048;
  /** Per thread: the array heads are scanned in (grown as needed, never shrunk). */
  private static final ThreadLocal<byte[][]> SCRATCH = ThreadLocal.withInitial(() -> new byte[][] {new byte[4096]});

  private final boolean requests;
  private final EdgeLimits limits;
  private final int headLimit;
  /** The head read so far while it spans reads; {@code null} otherwise, so an idle connection holds no head buffer. */
  private byte[] head;
  /** The array the last complete head is in (the per-thread one, or {@link #head}). */
  private byte[] done;
  private int headLength;
  private int lineStart;
  /** Where the field lines of the head begin; -1 while in the start line. */
  private int fieldsStart = -1;
  /** Where the head begins in the buffer last read; -1 if it began in an earlier one. */
  private int begin = -1;
  private boolean complete;
  private Failure failure;

  /**
   * @param requests whether the heads are requests' (limited by {@code limits}) or responses'
   *                 (limited to {@link FrameScanner#MAX_RESPONSE_HEAD})
   */
  HeadReader(boolean requests, EdgeLimits limits) {
    this.requests = requests;
    this.limits = limits;
    this.headLimit = requests ? limits.maxRequestLineBytes() + 2 + limits.maxHeaderBytes() + 2
        : FrameScanner.MAX_RESPONSE_HEAD;
  }

  /**
   * Reads head bytes of {@code in} from {@code start} (empty lines before a start line skipped,
   * RFC 9112 §2.2); returns how many it took: up to the head's end, or a fault, or {@code end}.
   */
  int read(ByteBuf in, int start, int end) {
    complete = false;
    failure = null;
    begin = -1;
    int i = start;
    if (headLength == 0) {
      while (i < end && (in.getByte(i) == '\r' || in.getByte(i) == '\n')) {
        i++;
      }
      if (i == end) {
        return i - start;
      }
      begin = i;
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
      // Copying a block and scanning the copy is cheaper than a bounds-checked read per byte.
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
            failure = requests ? Failure.MALFORMED_REQUEST : Failure.BAD_RESPONSE; // bare LF
            return offset + k - start;
          }
          int lineLength = k - lineStart;
          lineStart = k;
          if (fieldsStart < 0) {
            fieldsStart = k;
            limitAt = limitAt();
          }
          if (lineLength <= 2 && k >= 4 && buf[k - 2] == '\r' && buf[k - 3] == '\n') {
            complete = true;
            done = buf;
            return offset + k - start;
          }
        }
        if (k >= limitAt) {
          headLength = k;
          failure = tooLarge();
          if (failure != null) {
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

  /** The limit the head read so far is over, if any. */
  private Failure tooLarge() {
    boolean inStartLine = fieldsStart < 0;
    if (requests && inStartLine && headLength > limits.maxRequestLineBytes() + 2) {
      return Failure.URI_TOO_LONG;
    }
    if (headLength >= headLimit || (requests && !inStartLine && headLength - fieldsStart > limits.maxHeaderBytes() + 2)) {
      return requests ? Failure.HEADERS_TOO_LARGE : Failure.BAD_RESPONSE;
    }
    return null;
  }

  /** Whether the last {@link #read} ended with a whole head. */
  boolean complete() {
    return complete;
  }

  /** The fault the last {@link #read} ended with; {@code null} if none. */
  Failure failure() {
    return failure;
  }

  /** Where the head began in the buffer last read; -1 if in an earlier one, or none began. */
  int begin() {
    return begin;
  }

  /** The complete head's bytes, at 0: valid until the next read on this thread (copy to keep). */
  byte[] bytes() {
    return done;
  }

  /** How many bytes of the head were read (of {@link #bytes()} once complete). */
  int length() {
    return headLength;
  }

  /** The bytes of the field lines so far (the head's without its start line). */
  int fieldBytes() {
    return headLength - fieldsStart;
  }

  /** Starts over for the next head. */
  void clear() {
    headLength = 0;
    lineStart = 0;
    fieldsStart = -1;
    head = null;
    done = null;
  }

  /** The start of a head kept across reads, for logs and tests. */
  @Override
  public String toString() {
    return head == null ? "" : new String(head, 0, Math.min(headLength, 64), StandardCharsets.ISO_8859_1);
  }
}
