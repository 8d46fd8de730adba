package dev.fairway.proxy.upstream;

import dev.fairway.proxy.wire.H1Fields;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import java.util.Iterator;
import java.util.Map;

/**
 * A backend's HTTP/2 response frames as the HTTP objects an exchange relays, as Netty's
 * {@code Http2StreamFrameToHttpObjectCodec} makes them; and the check that nothing in them could
 * split an HTTP/1.1 head: HPACK lets any octet through, so a field value (or trailer value) with a
 * control character other than HTAB is refused (the frame codec has checked the names already).
 *
 * <p>Example: HEADERS {@code :status 200} without {@code content-length} become an
 * {@code HttpResponse} with {@code transfer-encoding: chunked}; trailers {@code grpc-status: 0}
 * a {@code LastHttpContent} carrying them; {@code x-note: a\r\nset-cookie: evil} nothing
 * ({@code null}): the stream fails and the client gets 502, never the injected line.
 */
final class ResponseFrames {
  private ResponseFrames() {
  }

  /**
   * A HEADERS frame of stream {@code id}: a 1xx or a whole bodiless response as a full response,
   * trailers as the body's end, else the response's head; {@code null} if a value is not clean.
   *
   * @throws Http2Exception if it is no valid response head (no {@code :status}, say)
   */
  static HttpObject head(int id, Http2Headers h, boolean endStream) throws Http2Exception {
    if (!clean(h)) {
      return null;
    }
    CharSequence status = h.status();
    if (status == null && endStream) {
      LastHttpContent last = new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER, false);
      H1Fields.add(h, last.trailingHeaders(), false);
      return last;
    }
    HttpResponseStatus code = H1Fields.status(status);
    if (code == null) {
      throw Http2Exception.streamError(id, Http2Error.PROTOCOL_ERROR, "no valid :status in the response: %s", status);
    }
    if (endStream || informational(status)) {
      FullHttpResponse full = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, code, Unpooled.EMPTY_BUFFER, false);
      H1Fields.add(h, full.headers(), false);
      return full;
    }
    HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, code, false);
    H1Fields.add(h, r.headers(), false);
    if (!contentAlwaysEmpty(status) && !HttpUtil.isContentLengthSet(r)) {
      r.headers().add(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
    return r;
  }

  /**
   * A HEADERS frame of stream {@code id} for an exchange whose client is an HTTP/2 stream: the
   * frame itself, its block to be edited into the client's as it is; {@code null} if a value is
   * not clean.
   *
   * @throws Http2Exception if it is no valid response head, as for {@link #head}
   */
  static Http2HeadersFrame checked(int id, Http2HeadersFrame f) throws Http2Exception {
    if (!clean(f.headers())) {
      return null;
    }
    CharSequence status = f.headers().status();
    if ((status != null || !f.isEndStream()) && H1Fields.status(status) == null) {
      throw Http2Exception.streamError(id, Http2Error.PROTOCOL_ERROR, "no valid :status in the response: %s", status);
    }
    return f;
  }

  /** 1xx but 101 (which HTTP/2 has not): a full response, as an interim one before the final. */
  private static boolean informational(CharSequence status) {
    return status.length() == 3 && status.charAt(0) == '1' && Character.isDigit(status.charAt(1))
        && Character.isDigit(status.charAt(2)) && status.charAt(2) != '1';
  }

  /** 204 or 304: no body, so never chunked. */
  private static boolean contentAlwaysEmpty(CharSequence status) {
    return status.length() == 3 && (status.charAt(0) == '2' || status.charAt(0) == '3') && status.charAt(1) == '0'
        && status.charAt(2) == '4';
  }

  /**
   * A DATA frame: a body part, or the body's end (without trailers: those come in a HEADERS
   * frame, so the end's are the shared empty ones); it takes over the frame's bytes.
   */
  static HttpContent body(Http2DataFrame f) {
    return f.isEndStream() ? new DefaultLastHttpContent(f.content(), EmptyHttpHeaders.INSTANCE)
        : new DefaultHttpContent(f.content());
  }

  /** Whether no value has a control character but HTAB (RFC 9110 §5.5, RFC 9113 §8.2.1). */
  static boolean clean(Http2Headers h) {
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iterator(); it.hasNext(); ) {
      CharSequence v = it.next().getValue();
      for (int i = 0, n = v.length(); i < n; i++) {
        char c = v.charAt(i);
        if (c < 0x20 && c != '\t' || c == 0x7f) {
          return false;
        }
      }
    }
    return true;
  }
}
