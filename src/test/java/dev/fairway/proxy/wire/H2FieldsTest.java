package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.HttpConversionUtil;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link H2Fields}: the same HTTP/2 fields as Netty's conversion makes, without its per-call work. */
class H2FieldsTest {
  /** The fields in order, one "name: value" each. */
  private static String fields(Http2Headers h) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<CharSequence, CharSequence> e : h) {
      out.add(e.getKey() + ": " + e.getValue());
    }
    return String.join(", ", out);
  }

  private static HttpResponse response(String... nameValues) {
    HttpHeaders h = new DefaultHttpHeaders(false);
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, h);
  }

  @Test
  void aResponseHeadLosesItsConnectionFieldsAndKeepsTheRestInOrderLowerCased() {
    HttpResponse r = response("Content-Type", "text/plain", "Transfer-Encoding", "chunked", "Keep-Alive", "timeout=5",
        "X-Request-Id", "7", "Set-Cookie", "a=1", "Set-Cookie", "b=2", "Upgrade", "h2c", "Proxy-Connection", "x",
        "Host", "h", "x-http2-stream-id", "3", "Via", "1.1 fairway");
    assertThat(fields(H2Fields.ofResponse(r))).isEqualTo(":status: 200, content-type: text/plain, x-request-id: 7, "
        + "set-cookie: a=1, set-cookie: b=2, via: 1.1 fairway");
  }

  @Test
  void sameFieldsAsNettysConversionForHeadsAndTrailers() {
    String[][] heads = {
        {"Content-Length", "3", "Date", "now"},
        {"TE", "gzip, Trailers", "Server", "b"},
        {"te", "gzip", "cookie", "a=1"},
        {"Grpc-Status", "0", "grpc-message", "ok", "Endpoint-Load-Metrics", "cpu=0.5"},
        {"Connection", "close, X-Hop", "X-Hop", "1", "X-Kept", "2"},
        {},
    };
    for (String[] head : heads) {
      HttpResponse r = response(head);
      assertThat(fields(H2Fields.ofResponse(r))).as("head %s", List.of(head))
          .isEqualTo(fields(HttpConversionUtil.toHttp2Headers(r, false)));
      assertThat(fields(H2Fields.ofTrailers(r.headers()))).as("trailers %s", List.of(head))
          .isEqualTo(fields(HttpConversionUtil.toHttp2Headers(r.headers(), false)));
    }
  }

  private static HttpRequest request(String target, String... nameValues) {
    HttpHeaders h = new DefaultHttpHeaders(false);
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, target, h);
  }

  /** The same fields as Netty's conversion (whose pseudo-fields come in another order), and none made for other targets. */
  @Test
  void aRequestHeadHasTheSameFieldsAsNettysConversion() {
    String[][] heads = {
        {"Host", "shop:8080", "Content-Type", "application/grpc", "TE", "trailers", "X-Request-Id", "7"},
        {"Host", "user@shop", "Transfer-Encoding", "chunked", "Connection", "x-hop", "X-Hop", "1", "Via", "1.1 fairway"},
        {"Host", "", "te", "gzip"},
        {},
    };
    for (String target : List.of("/p.S/Call?x=1", "*")) {
      for (String[] head : heads) {
        HttpRequest r = request(target, head);
        String ours = sorted(H2Fields.ofRequest(r, true));
        r.headers().set(HttpConversionUtil.ExtensionHeaderNames.SCHEME.text(), "https");
        assertThat(ours).as("%s %s", target, List.of(head)).isEqualTo(sorted(HttpConversionUtil.toHttp2Headers(r, false)));
      }
    }
    assertThat(fields(H2Fields.ofRequest(request("/a", "Host", "shop"), false)))
        .isEqualTo(":method: POST, :path: /a, :scheme: http, :authority: shop");
    assertThat(H2Fields.ofRequest(request("http://shop/a", "Host", "shop"), false)).isNull();
    assertThat(H2Fields.ofRequest(request("/a", "Host", "user@"), false)).isNull();
  }

  private static String sorted(Http2Headers h) {
    return Arrays.stream(fields(h).split(", ")).sorted().toList().toString();
  }

  @Test
  void teKeepsOnlyTrailersWhereverItIsListed() {
    assertThat(H2Fields.listsTrailers("trailers")).isTrue();
    assertThat(H2Fields.listsTrailers("gzip, TRAILERS ")).isTrue();
    assertThat(H2Fields.listsTrailers("gzip,trailers,deflate")).isTrue();
    assertThat(H2Fields.listsTrailers("gzip")).isFalse();
    assertThat(H2Fields.listsTrailers("trailersx, gzip")).isFalse();
  }
}
