package dev.fairway.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

/** {@link ResponseFrames}: a backend's response HEADERS as the HTTP objects an exchange relays. */
class ResponseFramesTest {
  private static String head(Http2Headers h, boolean endStream) throws Exception {
    HttpObject o = ResponseFrames.head(5, h, endStream);
    try {
      if (o == null) {
        return "refused";
      }
      String kind = o instanceof FullHttpResponse ? "full" : o instanceof HttpResponse ? "head" : "trailers";
      String fields = o instanceof HttpResponse r ? r.status().code() + " " + r.headers().get("transfer-encoding")
          : ((LastHttpContent) o).trailingHeaders().get("grpc-status");
      return kind + " " + fields;
    } finally {
      ReferenceCountUtil.release(o);
    }
  }

  @Test
  void headersBecomeAHeadAFullResponseOrTrailers() throws Exception {
    assertThat(head(new DefaultHttp2Headers().status("200"), false)).isEqualTo("head 200 chunked");
    assertThat(head(new DefaultHttp2Headers().status("200").set("content-length", "3"), false)).isEqualTo("head 200 null");
    assertThat(head(new DefaultHttp2Headers().status("204"), false)).isEqualTo("head 204 null");
    assertThat(head(new DefaultHttp2Headers().status("103"), false)).isEqualTo("full 103 null");
    assertThat(head(new DefaultHttp2Headers().status("200"), true)).isEqualTo("full 200 null");
    assertThat(head(new DefaultHttp2Headers().set("grpc-status", "0"), true)).isEqualTo("trailers 0");
  }

  @Test
  void aValueWithAControlCharacterButTabIsRefused() throws Exception {
    assertThat(head(new DefaultHttp2Headers(false).status("200").set("x-note", "a\r\nset-cookie: evil"), false))
        .isEqualTo("refused");
    assertThat(head(new DefaultHttp2Headers(false).set("x-note", "a\u007fb"), true)).isEqualTo("refused");
    assertThat(head(new DefaultHttp2Headers().status("200").set("x-note", "a\tb"), false)).isEqualTo("head 200 chunked");
  }

  private static String checked(Http2Headers h, boolean endStream) {
    DefaultHttp2HeadersFrame f = new DefaultHttp2HeadersFrame(h, endStream);
    try {
      Http2HeadersFrame out = ResponseFrames.checked(5, f);
      return out == null ? "refused" : out == f ? "as it came" : "another frame";
    } catch (Http2Exception e) {
      return "stream error";
    }
  }

  @Test
  void anHttp2ClientIsGivenTheFrameItselfOnceItsValuesAndStatusAreChecked() {
    assertThat(checked(new DefaultHttp2Headers().status("200"), false)).isEqualTo("as it came");
    assertThat(checked(new DefaultHttp2Headers().set("grpc-status", "0"), true)).isEqualTo("as it came");
    assertThat(checked(new DefaultHttp2Headers().set("grpc-status", "0"), false)).isEqualTo("stream error");
    assertThat(checked(new DefaultHttp2Headers(false).status("101"), false)).isEqualTo("stream error");
    assertThat(checked(new DefaultHttp2Headers(false).status("20x"), true)).isEqualTo("stream error");
    assertThat(checked(new DefaultHttp2Headers(false).status("200").set("x-note", "a\r\nset-cookie: evil"), false))
        .isEqualTo("refused");
  }
}
