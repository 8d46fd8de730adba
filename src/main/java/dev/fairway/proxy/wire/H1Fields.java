package dev.fairway.proxy.wire;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.Map;

/**
 * An HTTP/2 header block as an HTTP/1.1 head's fields, the way {@link H2Fields} goes the other
 * way: Netty's {@code HttpConversionUtil} without what a proxy throws away again at once (its
 * {@code x-http2-stream-id}, {@code x-http2-scheme} and {@code x-http2-path} fields, a look-up in
 * its translation table per field, a {@code Connection} field it sets and removes).
 * Pseudo-fields do not become fields (but a request's {@code :authority}, which becomes
 * {@code host}); {@code cookie} fields are joined into one (RFC 9113 §8.2.3); {@code trailer} and
 * {@code transfer-encoding} are dropped, as Netty's conversion drops them. The block must have
 * passed Netty's codec with header validation on (no connection-specific fields, pseudo-fields
 * first and known).
 *
 * <p>Example: {@code :method POST, :path /p.S/Call, :scheme http, :authority shop,
 * content-type application/grpc, te trailers} is {@code POST /p.S/Call HTTP/1.1} with
 * {@code host: shop}, {@code content-type: application/grpc} and {@code te: trailers}.
 */
public final class H1Fields {
  private static final AsciiString AUTHORITY = Http2Headers.PseudoHeaderName.AUTHORITY.value();

  private H1Fields() {
  }

  /** A request head; its {@code :method} and {@code :path} must be there (as {@code StreamHeads} checks). */
  public static HttpRequest ofRequest(Http2Headers h) {
    HttpRequest r = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(h.method().toString()),
        h.path().toString(), false);
    add(h, r.headers(), true);
    return r;
  }

  /**
   * The status of a response's {@code :status} value, or {@code null} if it is missing, no
   * three-digit code or 101 (which HTTP/2 has not, RFC 9113 §8.6).
   */
  public static HttpResponseStatus status(CharSequence value) {
    if (value == null || value.length() != 3) {
      return null;
    }
    int code = 0;
    for (int i = 0; i < 3; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return null;
      }
      code = code * 10 + c - '0';
    }
    return code < 100 || code == 101 ? null : HttpResponseStatus.valueOf(code);
  }

  /**
   * Adds the block's fields to {@code out}: for a request ({@code request}), {@code :authority} as
   * {@code host}; trailers ({@code request} false) have no pseudo-fields to carry.
   */
  public static void add(Http2Headers in, HttpHeaders out, boolean request) {
    StringBuilder cookies = null;
    for (Map.Entry<CharSequence, CharSequence> f : in) {
      CharSequence name = f.getKey();
      CharSequence value = f.getValue();
      int n = name.length();
      if (n > 0 && name.charAt(0) == ':') {
        if (request && AsciiString.contentEquals(name, AUTHORITY)) {
          out.add(HttpHeaderNames.HOST, value);
        }
      } else if (n == 6 && AsciiString.contentEquals(name, HttpHeaderNames.COOKIE)) {
        cookies = cookies == null ? new StringBuilder(value) : cookies.append("; ").append(value);
      } else if (!(n == 7 && AsciiString.contentEquals(name, HttpHeaderNames.TRAILER)
          || n == 17 && AsciiString.contentEquals(name, HttpHeaderNames.TRANSFER_ENCODING))) {
        out.add(name, value);
      }
    }
    if (cookies != null) {
      out.add(HttpHeaderNames.COOKIE, cookies.toString());
    }
  }
}
