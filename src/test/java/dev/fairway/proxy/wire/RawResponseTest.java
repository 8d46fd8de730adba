package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link RawResponse}: the client's head written from a backend's head bytes, byte for byte. */
class RawResponseTest {
  private static RawResponse response(String head) {
    byte[] bytes = head.getBytes(StandardCharsets.ISO_8859_1);
    return new RawResponse(bytes, bytes.length, Integer.parseInt(head.substring(9, 12)), 0);
  }

  private static String toClient(RawResponse r, boolean http10, boolean close) {
    ByteBuf out = r.toClient(http10, close, UnpooledByteBufAllocator.DEFAULT);
    try {
      return out.toString(StandardCharsets.ISO_8859_1);
    } finally {
      out.release();
    }
  }

  @Test
  void dropsHopByHopFieldsAndAddsVia() {
    RawResponse r = response("HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 6\r\nConnection: keep-alive\r\n\r\n");
    assertThat(toClient(r, false, false))
        .isEqualTo("HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 6\r\nVia: 1.1 fairway\r\n\r\n");
    assertThat(r.keepAlive()).isTrue();
    assertThat(r.lameDuck()).isFalse();
    assertThat(r.loadReport()).isNull();
  }

  @Test
  void makesHttp2FieldsInLowerCaseWithTheSameEdits() {
    RawResponse r = response("HTTP/1.1 299 Custom\r\nServer: nginx\r\nX-Mixed-CASE:  v1 \r\nConnection: close, X-Private\r\n"
        + "X-Private: s\r\nLame-Duck: true\r\nContent-Length: 6\r\n\r\n");
    StringBuilder fields = new StringBuilder();
    r.toHttp2().forEach(f -> fields.append(f.getKey()).append('=').append(f.getValue()).append(' '));
    assertThat(fields.toString().trim())
        .isEqualTo(":status=299 server=nginx x-mixed-case=v1 content-length=6 via=1.1 fairway");
    assertThat(r.keepAlive()).isFalse();
    assertThat(r.lameDuck()).isTrue();
    assertThat(response("HTTP/1.1 404 Not Found\r\n\r\n").toHttp2().status()).hasToString("404");
  }

  @Test
  void speaksTheClientsVersionAndSaysWhetherItsConnectionStays() {
    String head = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
    assertThat(toClient(response(head), true, false))
        .isEqualTo("HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\nVia: 1.1 fairway\r\nConnection: keep-alive\r\n\r\n");
    assertThat(toClient(response(head), false, true))
        .isEqualTo("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nVia: 1.1 fairway\r\nConnection: close\r\n\r\n");
  }

  @Test
  void dropsFieldsNamedInConnectionAndTheBackendsSignals() {
    RawResponse r = response("HTTP/1.1 200 OK\r\nConnection: close, X-Secret\r\nx-secret: 1\r\n"
        + "Lame-Duck: TRUE\r\nLame-Duck: false\r\nendpoint-load-metrics:  TEXT cpu_utilization=0.5 \r\n"
        + "Keep-Alive: timeout=5\r\nX-Kept: a\r\nContent-Length: 2\r\n\r\n");
    assertThat(toClient(r, false, false))
        .isEqualTo("HTTP/1.1 200 OK\r\nX-Kept: a\r\nContent-Length: 2\r\nVia: 1.1 fairway\r\n\r\n");
    assertThat(r.keepAlive()).as("the backend said close").isFalse();
    assertThat(r.lameDuck()).as("the first Lame-Duck field decides").isTrue();
    assertThat(r.loadReport()).isEqualTo("TEXT cpu_utilization=0.5");
  }

  @Test
  void theBinaryLoadReportIsConsumedAndRecordedTaggedUnlessTheTextOneCame() {
    RawResponse bin = response("HTTP/1.1 200 OK\r\nEndpoint-Load-Metrics-Bin: CTMzMzMzM9M/\r\nX-Kept: a\r\n"
        + "endpoint-load-metrics-bin: AAAA\r\nContent-Length: 0\r\n\r\n");
    assertThat(toClient(bin, false, false)).isEqualTo("HTTP/1.1 200 OK\r\nX-Kept: a\r\nContent-Length: 0\r\nVia: 1.1 fairway\r\n\r\n");
    assertThat(bin.loadReport()).isEqualTo("BIN CTMzMzMzM9M/");
    RawResponse both = response("HTTP/1.1 200 OK\r\nendpoint-load-metrics-bin: CTMzMzMzM9M/\r\n"
        + "endpoint-load-metrics: TEXT eps=1\r\nContent-Length: 0\r\n\r\n");
    toClient(both, false, false);
    assertThat(both.loadReport()).isEqualTo("TEXT eps=1");
  }

  @Test
  void extendsTheBackendsViaAndKeepsAnHttp10BackendOnlyWhenItSaysKeepAlive() {
    RawResponse r = response("HTTP/1.0 200 OK\r\nVia: 1.0 cache\r\nvia: 1.1 edge\r\nContent-Length: 0\r\n\r\n");
    assertThat(toClient(r, false, false))
        .isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nVia: 1.0 cache, 1.1 edge, 1.1 fairway\r\n\r\n");
    assertThat(r.keepAlive()).isFalse();

    RawResponse kept = response("HTTP/1.0 204 No Content\r\nConnection: Keep-Alive\r\n\r\n");
    assertThat(toClient(kept, false, false)).isEqualTo("HTTP/1.1 204 No Content\r\nVia: 1.1 fairway\r\n\r\n");
    assertThat(kept.keepAlive()).isTrue();
  }

  @Test
  void theClientsHeadNeverOutgrowsItsBuffer() {
    String id = RequestId.generate();
    for (String head : new String[] {
        "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n",
        "HTTP/1.1 200 OK\r\nServer: nginx\r\nVia: 1.1 " + "edge".repeat(20) + "\r\nContent-Length: 6\r\n\r\n"}) {
      for (boolean http10 : new boolean[] {false, true}) {
        RawResponse r = response(head);
        r.requestId(id);
        ByteBuf out = r.toClient(http10, false, UnpooledByteBufAllocator.DEFAULT);
        try {
          assertThat(out.capacity()).as(head).isEqualTo(head.length() + r.added()); // grown, it would be a power of two
        } finally {
          out.release();
        }
      }
    }
  }
}
