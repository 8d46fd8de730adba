package dev.fairway.proxy.wire;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.AsciiString;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * A response head's, a request head's or trailers' fields as an HTTP/2 header block, as Netty's
 * {@code HttpConversionUtil.toHttp2Headers} makes it but without its per-call map of the
 * {@code Connection} field's tokens (a fresh hash table each time, for a field a response on its
 * way to a client no longer has) and without splitting {@code cookie} (RFC 9113 §8.2.3 allows
 * either). Names are lower-cased; connection-specific fields are dropped; {@code te} is kept only
 * as {@code trailers}. A head that still names fields in {@code Connection} goes through Netty's.
 *
 * <p>Example: {@code Content-Type: text/plain}, {@code Transfer-Encoding: chunked} and
 * {@code X-Request-Id: 7} on a 200 become {@code :status 200}, {@code content-type: text/plain}
 * and {@code x-request-id: 7}.
 */
public final class H2Fields {
  /** Fields that are about the HTTP/1.1 connection, never sent in HTTP/2 (RFC 9113 §8.2.2), and Netty's extension fields. */
  private static final Set<AsciiString> DROPPED = Set.of(HttpHeaderNames.CONNECTION, AsciiString.cached("keep-alive"),
      AsciiString.cached("proxy-connection"), HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.HOST,
      HttpHeaderNames.UPGRADE, HttpConversionUtil.ExtensionHeaderNames.STREAM_ID.text(),
      HttpConversionUtil.ExtensionHeaderNames.SCHEME.text(), HttpConversionUtil.ExtensionHeaderNames.PATH.text());

  static final AsciiString HTTP = AsciiString.cached("http");
  static final AsciiString HTTPS = AsciiString.cached("https");

  private H2Fields() {
  }

  /** A response head as a HEADERS frame's block: {@code :status} and its fields. */
  public static Http2Headers ofResponse(HttpResponse r) {
    HttpHeaders in = r.headers();
    Http2Headers out = new DefaultHttp2Headers(false, in.size() + 1);
    out.status(r.status().codeAsText());
    add(in, out);
    return out;
  }

  /**
   * A request head in origin form ({@code /a?b}) or asterisk form as a HEADERS frame's block:
   * {@code :method}, {@code :path}, {@code :scheme} ({@code https} if {@code secure}),
   * {@code :authority} from {@code Host} without userinfo, then its fields; {@code null} for any
   * other target, or a {@code Host} that is userinfo only, which {@code HttpConversionUtil} handles.
   *
   * <p>Example: {@code POST /p.S/Call} with {@code Host: shop} and {@code TE: trailers} over a
   * cleartext connection is {@code :method POST, :path /p.S/Call, :scheme http, :authority shop,
   * te trailers}.
   */
  public static Http2Headers ofRequest(HttpRequest r, boolean secure) {
    String target = r.uri();
    if (!target.startsWith("/") && !target.equals("*")) {
      return null;
    }
    HttpHeaders in = r.headers();
    String host = in.get(HttpHeaderNames.HOST);
    AsciiString authority = host == null ? null : authority(host);
    if (authority != null && authority.isEmpty() && !host.isEmpty()) {
      return null;
    }
    Http2Headers out = new DefaultHttp2Headers(false, in.size() + 4);
    out.method(r.method().asciiName()).path(new AsciiString(target)).scheme(secure ? HTTPS : HTTP);
    if (authority != null) {
      out.authority(authority);
    }
    add(in, out);
    return out;
  }

  /** {@code :authority} for a {@code Host} value: without the userinfo HTTP/2 forbids there (RFC 9113 §8.3.1). */
  static AsciiString authority(String host) {
    int userinfo = host.indexOf('@') + 1;
    return new AsciiString(host, userinfo, host.length() - userinfo);
  }

  /** Trailer fields as a HEADERS frame's block. */
  public static Http2Headers ofTrailers(HttpHeaders in) {
    Http2Headers out = new DefaultHttp2Headers(false, in.size());
    add(in, out);
    return out;
  }

  private static void add(HttpHeaders in, Http2Headers out) {
    if (in.contains(HttpHeaderNames.CONNECTION)) {
      HttpConversionUtil.toHttp2Headers(in, out); // its tokens name more fields to drop
      return;
    }
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = in.iteratorCharSequence(); it.hasNext(); ) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      AsciiString name = AsciiString.of(e.getKey()).toLowerCase();
      if (DROPPED.contains(name)) {
        continue;
      }
      if (name.contentEquals(HttpHeaderNames.TE)) {
        if (listsTrailers(e.getValue())) {
          out.add(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS);
        }
        continue;
      }
      out.add(name, e.getValue());
    }
  }

  /** Whether a {@code te} value lists {@code trailers} (the only {@code te} HTTP/2 allows). */
  static boolean listsTrailers(CharSequence value) {
    int start = 0;
    for (int i = 0, n = value.length(); i <= n; i++) {
      if (i == n || value.charAt(i) == ',') {
        if (AsciiString.contentEqualsIgnoreCase(AsciiString.trim(value.subSequence(start, i)), HttpHeaderValues.TRAILERS)) {
          return true;
        }
        start = i + 1;
      }
    }
    return false;
  }
}
