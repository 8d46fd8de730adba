package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.HeaderEdit;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A service's header edits on every head shape: a bodiless request's bytes, a decoded request's
 * map, a length-framed response's bytes (for HTTP/1.1 and HTTP/2 clients) and a decoded
 * response's map. Remove, then set, then add, after Fairway's own fields; names in any case.
 */
class FieldEditsTest {
  /** set X-Env: prod, set X-Zone: eu; add X-Tag: a, add x-env: extra; remove cookie, X-Debug. */
  private static final HeaderEdit EDIT = new HeaderEdit(ordered("X-Env", "prod", "X-Zone", "eu"),
      ordered("X-Tag", "a", "x-env", "extra"), List.of("cookie", "X-Debug"));

  private static Map<String, String> ordered(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void aBodilessRequestsBackendHeadLeavesOutRemovedAndSetFieldsAndEndsWithTheEdit() {
    RawRequest r = new RawRequest(("GET /a HTTP/1.1\r\nHost: shop\r\nCookie: s=1\r\nX-ENV: dev\r\nAccept: */*\r\n"
        + "x-debug: on\r\nX-Tag: client\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    r.editFields(EDIT);
    r.toBackend("10.0.0.7", false, "shop", 0, "127.0.0.1:9001", ForwardingRules.VIA_TOKEN, UnpooledByteBufAllocator.DEFAULT);
    try {
      assertThat(r.backendHead().toString(StandardCharsets.ISO_8859_1)).isEqualTo("GET /a HTTP/1.1\r\nAccept: */*\r\n"
          + "X-Tag: client\r\nX-Forwarded-For: 10.0.0.7\r\nX-Forwarded-Proto: http\r\nX-Forwarded-Host: shop\r\n"
          + "Forwarded: for=10.0.0.7;proto=http;host=shop\r\nVia: 1.1 fairway\r\nX-Env: prod\r\nX-Zone: eu\r\n"
          + "X-Tag: a\r\nx-env: extra\r\nHost: shop\r\n\r\n");
    } finally {
      r.release();
    }
  }

  @Test
  void aDecodedRequestsMapIsEditedOnceAfterTheForwardingRules() {
    DefaultHttpRequest req = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/up");
    req.headers().add("Host", "shop").add("Content-Length", "3").add("Cookie", "s=1").add("x-env", "dev")
        .add("Connection", "X-Zone").add("X-Zone", "client");
    DecodedRequest d = new DecodedRequest(req);
    d.editFields(EDIT);
    d.toBackend("10.0.0.7", false, "shop", 0, "127.0.0.1:9001", ForwardingRules.VIA_TOKEN, UnpooledByteBufAllocator.DEFAULT);
    d.toBackend("10.0.0.7", false, "shop", 0, "127.0.0.1:9002", ForwardingRules.VIA_TOKEN, UnpooledByteBufAllocator.DEFAULT);
    assertThat(fields(req.headers())).as("the client's X-Zone, named in Connection, goes; the set one stays")
        .isEqualTo("Content-Length=3 X-Forwarded-For=10.0.0.7 X-Forwarded-Proto=http X-Forwarded-Host=shop "
            + "Forwarded=for=10.0.0.7;proto=http;host=shop Via=1.1 fairway X-Env=prod X-Zone=eu X-Tag=a x-env=extra "
            + "host=shop");
  }

  @Test
  void aLengthFramedResponseGetsTheEditAfterFairwaysOwnFieldsForBothClientProtocols() {
    String head = "HTTP/1.1 200 OK\r\nServer: nginx\r\nCookie: c\r\nX-Env: dev\r\nContent-Length: 2\r\n\r\n";
    RawResponse r = response(head);
    r.requestId("id-1");
    r.edit(EDIT);
    ByteBuf out = r.toClient(false, false, UnpooledByteBufAllocator.DEFAULT);
    try {
      assertThat(out.toString(StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1 200 OK\r\nServer: nginx\r\n"
          + "Content-Length: 2\r\nVia: 1.1 fairway\r\nX-Request-Id: id-1\r\nX-Env: prod\r\nX-Zone: eu\r\nX-Tag: a\r\n"
          + "x-env: extra\r\n\r\n");
    } finally {
      out.release();
    }
    RawResponse h2 = response(head);
    h2.edit(EDIT);
    StringBuilder fields = new StringBuilder();
    h2.toHttp2().forEach(f -> fields.append(f.getKey()).append('=').append(f.getValue()).append(' '));
    assertThat(fields.toString().trim()).isEqualTo(":status=200 server=nginx content-length=2 via=1.1 fairway "
        + "x-env=prod x-zone=eu x-tag=a x-env=extra");
  }

  @Test
  void aDecodedResponsesMapIsEditedInPlace() {
    DefaultHttpResponse resp = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    resp.headers().add("X-Debug", "1").add("X-Zone", "us").add("Transfer-Encoding", "chunked");
    FieldEdits.apply(resp.headers(), EDIT);
    assertThat(fields(resp.headers())).isEqualTo("Transfer-Encoding=chunked X-Env=prod X-Zone=eu X-Tag=a x-env=extra");
  }

  private static RawResponse response(String head) {
    byte[] bytes = head.getBytes(StandardCharsets.ISO_8859_1);
    return new RawResponse(bytes, bytes.length, 200, 2);
  }

  private static String fields(HttpHeaders h) {
    StringBuilder out = new StringBuilder();
    h.forEach(f -> out.append(out.length() == 0 ? "" : " ").append(f.getKey()).append('=').append(f.getValue()));
    return out.toString();
  }
}
