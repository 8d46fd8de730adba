package dev.fairway.proxy.h2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.proxy.wire.Failure;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The HTTP/2 preface detector and the check of a stream's head, as pure functions. */
class H2HeadsTest {
  @Test
  void thePrefaceIsRecognisedByteByByteAndAnythingElseIsHttp11() {
    byte[] preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    StringBuilder verdicts = new StringBuilder();
    for (String s : List.of("P", "PRI * HTTP/2", new String(preface, StandardCharsets.US_ASCII) + "\0\0\0\4",
        "GET / HTTP/1.1\r\n", "PRX", "PRI * HTTP/1.1\r\n")) {
      ByteBuf buf = Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
      verdicts.append(H2c.match(buf)).append(' ');
      buf.release();
    }
    assertThat(verdicts.toString().trim()).isEqualTo("UNDECIDED UNDECIDED HTTP2 HTTP1 HTTP1 HTTP1");
  }

  @Test
  void streamHeadsAreCheckedAsAnHttp11HeadWouldBe() {
    assertThat(check("GET", "/ok", "a", "b")).isNull();
    assertThat(check("GET", "/a\u0001", "a", "b")).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(check("GET", "/a b", "a", "b")).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(check("GET", "/caf\u00e9", "a", "b")).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(check("GET", "/" + "x".repeat(64), "a", "b")).isEqualTo(Failure.URI_TOO_LONG);
    assertThat(check("GET", "/ok", "a", "v\r\nInjected: 1")).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(check("GET", "/ok", "a", "v\0")).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(check("G(T", "/ok", "a", "b")).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(check("GET", null, "a", "b")).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(check("GET", "http://other/ok", "a", "b")).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(check("GET", "*", "a", "b")).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(check("OPTIONS", "*", "a", "b")).isNull();
    assertThat(check("GET", "/ok", "a", "1", "b", "2", "c", "3")).isNull();
    assertThat(check("GET", "/ok", "a", "1", "b", "2", "c", "3", "d", "4")).isEqualTo(Failure.HEADERS_TOO_LARGE);
  }

  private static Failure check(String method, String path, String... fields) {
    Http2Headers h = new DefaultHttp2Headers(false).method(method).scheme("http");
    if (path != null) {
      h.path(path);
    }
    for (int i = 0; i < fields.length; i += 2) {
      h.add(fields[i], fields[i + 1]);
    }
    return StreamHeads.check(h, 64, 3);
  }
}
