package dev.fairway.proxy.h2;

import dev.fairway.proxy.wire.Authority;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.proxy.wire.HeadCheck;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.Map;

/**
 * The check of an HTTP/2 stream's head before it becomes a request: what HTTP/1.1 could not carry
 * and HTTP/2 forbids, judged as the framing guard judges an HTTP/1.1 head.
 *
 * <p>Example: {@code :method GET, :path /a b} is {@link Failure#MALFORMED_REQUEST} (a space in the
 * target); {@code :method OPTIONS, :path *} passes ({@code null}); a 65-byte {@code :path} with
 * {@code maxTargetBytes} 64 is {@link Failure#URI_TOO_LONG}.
 */
public final class StreamHeads {
  private StreamHeads() {
  }

  /**
   * What an HTTP/1.1 request head could not carry, and the guard would have refused: no
   * {@code :method} or {@code :path} (so no {@code CONNECT}), a method that is no token, a
   * target or field value with control characters (RFC 9113 §8.2.1), an {@code :authority} that is
   * no valid {@code Host} (userinfo included, RFC 9113 §8.3.1), a target or a field count
   * over the limits; and what HTTP/2 forbids, a {@code :path} that is neither an absolute path nor
   * {@code *} for {@code OPTIONS} (RFC 9113 §8.3.1); {@code null} if none. Netty's codec has
   * checked the field names already.
   */
  public static Failure check(Http2Headers h, int maxTargetBytes, int maxFields) {
    CharSequence method = h.method();
    CharSequence path = h.path();
    if (method == null || path == null || method.length() == 0 || path.length() == 0) {
      return Failure.MALFORMED_REQUEST;
    }
    if (path.length() > maxTargetBytes) {
      return Failure.URI_TOO_LONG;
    }
    if (path.charAt(0) != '/' && !(path.length() == 1 && path.charAt(0) == '*' && AsciiString.contentEquals(method,
        "OPTIONS"))) {
      return Failure.MALFORMED_REQUEST; // not an absolute path, nor OPTIONS's "*": no absolute form over HTTP/2
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
    AsciiString authority = h.authority() == null ? null : AsciiString.of(h.authority());
    if (authority != null
        && !Authority.valid(authority.array(), authority.arrayOffset(), authority.arrayOffset() + authority.length())) {
      return Failure.MALFORMED_REQUEST; // userinfo, a list, spaces: as a Host over HTTP/1.1
    }
    int fields = 0;
    for (Map.Entry<CharSequence, CharSequence> f : h) {
      CharSequence v = f.getValue();
      for (int i = 0; i < v.length(); i++) {
        char c = v.charAt(i);
        if (c < 0x20 && c != '\t' || c == 0x7f) {
          return Failure.MALFORMED_REQUEST; // CR, LF, NUL and the other controls but HTAB, as over HTTP/1.1
        }
      }
      CharSequence name = f.getKey();
      if (name.length() == 0 || name.charAt(0) != ':') {
        fields++;
      }
    }
    return fields > maxFields ? Failure.HEADERS_TOO_LARGE : null;
  }
}
