package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.Http2Headers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StreamHeadTest {
  private static String block(String head, HttpMethod method, String target, boolean https, boolean te) {
    byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
    Http2Headers out = StreamHead.of(h, h.length, method, target, https, te);
    List<String> fields = new ArrayList<>();
    for (Map.Entry<CharSequence, CharSequence> f : out) {
      fields.add(f.getKey() + " " + f.getValue());
    }
    return String.join(", ", fields);
  }

  @Test
  void lowerCasesNamesTrimsValuesMovesHostAndDropsConnectionSpecificFields() {
    assertThat(block("GET /a?b=1 HTTP/1.1\r\nAccept:  text/plain \r\nConnection: close\r\nKeep-Alive: 5\r\n"
        + "Proxy-Connection: x\r\nTransfer-Encoding: chunked\r\nUpgrade: h2c\r\nTE: gzip\r\nX-Mixed-Case:\tV a\r\n"
        + "Via: 2 fairway\r\nHost: shop\r\n\r\n", HttpMethod.GET, "/a?b=1", false, false))
        .isEqualTo(":method GET, :path /a?b=1, :scheme http, :authority shop, accept text/plain, x-mixed-case V a, "
            + "via 2 fairway");
  }

  @Test
  void takesTheSchemeFromTheConnectionAndAddsTeTrailersWhenAsked() {
    assertThat(block("POST /svc/Call HTTP/1.1\r\ncontent-type: application/grpc\r\nHost: api:443\r\n\r\n",
        HttpMethod.POST, "/svc/Call", true, true))
        .isEqualTo(":method POST, :path /svc/Call, :scheme https, :authority api:443, content-type application/grpc, "
            + "te trailers");
  }

  @Test
  void aConnectRequestHasOnlyItsAuthority() {
    assertThat(block("CONNECT db:5432 HTTP/1.1\r\nHost: db:5432\r\n\r\n", HttpMethod.CONNECT, "db:5432", false, false))
        .isEqualTo(":method CONNECT, :authority db:5432");
  }

  @Test
  void theAbsoluteFormLosesItsSchemeAndAuthority() {
    assertThat(List.of("/a?b", "*", "http://shop/a?b", "http://shop", "http://shop?x=1", "https://shop:8443/").stream()
        .map(StreamHead::path)).containsExactly("/a?b", "*", "/a?b", "/", "/?x=1", "/");
  }
}
