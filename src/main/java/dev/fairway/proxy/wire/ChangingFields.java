package dev.fairway.proxy.wire;

import io.netty.handler.codec.http2.Http2HeadersEncoder;
import io.netty.util.AsciiString;

/**
 * Which fields one HTTP/2 connection's header compression keeps out of its table: those whose
 * value is new on every message. Each such field's name enters the table once, with its first
 * value (and again every {@value #REFRESH} messages, in case other fields pushed it out); its other
 * values are literals never indexed (RFC 7541 §6.2.3) that name the field by its entry.
 *
 * <p>Example: requests 1, 2, 3 on a connection carry {@code x-request-id} a1, b2, c3. a1 is added
 * to the table; b2 and c3 go out as "never indexed, name: entry 62, value: b2": as many bytes as
 * if they were added, but the table keeps {@code :authority}, {@code forwarded}, {@code via} and
 * the other fields that repeat, one byte each. Netty's default adds every id, and about every 40
 * requests the ids have pushed the repeating fields out, to be sent in full and added again: work
 * for the encoder here and for every decoder downstream.
 *
 * <p>The fields: Fairway's request id, a call's remaining {@code grpc-timeout} (reduced by the
 * time spent) and a hop's {@code traceparent} (a new span id). One instance per connection: it
 * counts what it has seen.
 */
final class ChangingFields implements Http2HeadersEncoder.SensitivityDetector {
  /** How many values of a field apart its name enters the table again. */
  static final int REFRESH = 64;
  private static final AsciiString REQUEST_ID = AsciiString.cached("x-request-id");
  private static final AsciiString GRPC_TIMEOUT = AsciiString.cached("grpc-timeout");
  private static final AsciiString TRACEPARENT = AsciiString.cached("traceparent");
  private int requestIds;
  private int timeouts;
  private int traceparents;

  /** Whether the value goes out never indexed; the other fields are left to the encoder. */
  @Override
  public boolean isSensitive(CharSequence name, CharSequence value) {
    int n = name.length();
    if (n == 12) {
      if (AsciiString.contentEqualsIgnoreCase(name, REQUEST_ID)) {
        return requestIds++ % REFRESH != 0;
      }
      if (AsciiString.contentEqualsIgnoreCase(name, GRPC_TIMEOUT)) {
        return timeouts++ % REFRESH != 0;
      }
    } else if (n == 11 && AsciiString.contentEqualsIgnoreCase(name, TRACEPARENT)) {
      return traceparents++ % REFRESH != 0;
    }
    return false;
  }
}
