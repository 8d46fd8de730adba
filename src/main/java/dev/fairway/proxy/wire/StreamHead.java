package dev.fairway.proxy.wire;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;

/**
 * The HTTP/2 header block of a backend head Fairway wrote in HTTP/1.1 form (RFC 9113 §8.3.1),
 * straight from its bytes: the pseudo-fields from the request line and {@code Host}, names in
 * lower case, values without their surrounding whitespace, and no connection-specific field. The
 * values share the head's bytes; nothing goes through a header map first.
 *
 * <p>Example: {@code "GET /a?b=1 HTTP/1.1\r\nAccept: text/plain\r\nVia: 2 fairway\r\nHost: shop\r\n\r\n"}
 * to an {@code h2c://} backend is {@code :method GET, :path /a?b=1, :scheme http, :authority shop,
 * accept text/plain, via 2 fairway}; with {@code teTrailers} (a gRPC client's {@code te: trailers})
 * also {@code te trailers}.
 */
public final class StreamHead {
  private StreamHead() {
  }

  /**
   * The header block of {@code head} ({@code head[0, end)}, from its request line to its blank
   * line) for {@code method} and the backend's request {@code target}.
   *
   * @param https whether the backend's connection is TLS ({@code :scheme https})
   */
  public static Http2Headers of(byte[] head, int end, HttpMethod method, String target, boolean https,
                                boolean teTrailers) {
    Http2Headers out = new DefaultHttp2Headers(false, 16).method(method.asciiName());
    boolean connect = HttpMethod.CONNECT.equals(method);
    if (connect) {
      out.authority(target);
    } else {
      out.path(path(target)).scheme(https ? "https" : "http");
    }
    int s = HeadBytes.indexOf(head, (byte) '\n', 0, end) + 1;
    for (int e; (e = HeadBytes.indexOf(head, (byte) '\r', s, end)) > s; s = e + 2) {
      int colon = HeadBytes.indexOf(head, (byte) ':', s, e);
      int vs = colon + 1;
      int ve = e;
      while (vs < ve && (head[vs] == ' ' || head[vs] == '\t')) {
        vs++;
      }
      while (ve > vs && (head[ve - 1] == ' ' || head[ve - 1] == '\t')) {
        ve--;
      }
      AsciiString value = new AsciiString(head, vs, ve - vs, false);
      int n = colon - s;
      if (n == 4 && HeadBytes.nameIs(head, s, "host")) {
        if (!connect) {
          out.authority(value);
        }
      } else if (!connectionSpecific(head, s, n)) {
        out.add(new AsciiString(head, s, n, false).toLowerCase(), value);
      }
    }
    if (teTrailers) {
      out.add("te", "trailers");
    }
    return out;
  }

  /** The {@code :path} of a target: origin-form and {@code *} as they are, absolute-form without its scheme and authority. */
  static String path(String target) {
    if (target.startsWith("/") || target.equals("*")) {
      return target;
    }
    int authority = target.indexOf("://");
    int slash = authority < 0 ? -1 : target.indexOf('/', authority + 3);
    int query = authority < 0 ? -1 : target.indexOf('?', authority + 3);
    if (slash < 0 || query >= 0 && query < slash) {
      return query < 0 ? "/" : "/" + target.substring(query);
    }
    return target.substring(slash);
  }

  /** Fields that have no place in HTTP/2 (RFC 9113 §8.2.2); {@code te} is added back only as {@code trailers}. */
  private static boolean connectionSpecific(byte[] h, int s, int n) {
    return switch (n) {
      case 2 -> HeadBytes.nameIs(h, s, "te");
      case 7 -> HeadBytes.nameIs(h, s, "upgrade");
      case 10 -> HeadBytes.nameIs(h, s, "connection") || HeadBytes.nameIs(h, s, "keep-alive");
      case 16 -> HeadBytes.nameIs(h, s, "proxy-connection");
      case 17 -> HeadBytes.nameIs(h, s, "transfer-encoding");
      default -> false;
    };
  }
}
