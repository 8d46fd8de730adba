package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** {@link H1Fields}: HTTP/2 header blocks as HTTP/1.1 heads, without Netty's {@code x-http2-*} fields. */
class H1FieldsTest {
  private static String fields(HttpHeaders h) {
    return h.entries().stream().map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining(", "));
  }

  @Test
  void aRequestGetsItsLineAndHostFromPseudoFieldsAndOneCookieField() {
    Http2Headers h = new DefaultHttp2Headers().method("POST").path("/p.S/Call").scheme("http").authority("shop");
    h.add("content-type", "application/grpc").add("cookie", "a=1").add("te", "trailers").add("cookie", "b=2")
        .add("trailer", "grpc-status");

    HttpRequest r = H1Fields.ofRequest(h);

    assertThat(r.method() + " " + r.uri() + " " + r.protocolVersion()).isEqualTo("POST /p.S/Call HTTP/1.1");
    assertThat(fields(r.headers())).isEqualTo("host: shop, content-type: application/grpc, te: trailers, cookie: a=1; b=2");
  }

  @Test
  void aResponseHasItsStatusAndNoPseudoFields() {
    Http2Headers h = new DefaultHttp2Headers().status("204").add("content-type", "application/grpc")
        .add("grpc-encoding", "identity").add("set-cookie", "a=1").add("set-cookie", "b=2");

    HttpHeaders out = new DefaultHttpHeaders();
    H1Fields.add(h, out, false);

    assertThat(H1Fields.status(h.status()).code() + " " + fields(out))
        .isEqualTo("204 content-type: application/grpc, grpc-encoding: identity, set-cookie: a=1, set-cookie: b=2");
  }

  @Test
  void trailersKeepTheirFields() {
    HttpHeaders out = new DefaultHttpHeaders();
    H1Fields.add(new DefaultHttp2Headers().add("grpc-status", "3").add("grpc-message", "bad id"), out, false);
    assertThat(fields(out)).isEqualTo("grpc-status: 3, grpc-message: bad id");
  }

  @Test
  void onlyAThreeDigitStatusButOneHundredAndOneIsAStatus() {
    assertThat(Stream.of("200", "103", "599", "101", "99", "2000", "20a", "", null)
        .map(s -> String.valueOf(H1Fields.status(s) == null ? null : H1Fields.status(s).code()))
        .collect(Collectors.joining(" "))).isEqualTo("200 103 599 null null null null null null");
  }
}
