package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.EdgeLimits;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RawRequest}: what is read of a bodiless request's bytes, and the backend's head written from them. */
class RawRequestTest {
  private static final EdgeLimits ONE_TRUSTED_HOP = new EdgeLimits(32 * 1024, 100, 8 * 1024, 10_000, 60_000, 10_000,
      EdgeLimits.UnderscoreHeaders.DROP, 1, 100);

  private static RawRequest request(String head) {
    return new RawRequest(head.getBytes(StandardCharsets.ISO_8859_1));
  }

  private static String toBackend(RawRequest r, String authority, EdgeLimits limits) {
    r.toBackend("10.0.0.7", false, authority, limits.trustedHops(), "127.0.0.1:9001", ForwardingRules.VIA_TOKEN,
        UnpooledByteBufAllocator.DEFAULT);
    try {
      return r.backendHead().toString(StandardCharsets.ISO_8859_1);
    } finally {
      r.release();
    }
  }

  @Test
  void readsTheRequestLineHostAndKeepAlive() {
    RawRequest r = request("HEAD /a?b=1 HTTP/1.0\r\nhost:  Shop:8080 \r\nConnection: Keep-Alive\r\nUser-Agent: wrk\r\n\r\n");
    assertThat(r.method()).isSameAs(HttpMethod.HEAD);
    assertThat(r.uri()).isEqualTo("/a?b=1");
    assertThat(r.version()).isEqualTo(HttpVersion.HTTP_1_0);
    assertThat(r.host()).isEqualTo("Shop:8080");
    assertThat(r.keepAlive()).isTrue();
    assertThat(r.field("user-agent")).isEqualTo("wrk");
    assertThat(r.field("referer")).isNull();
    assertThat(request("GET / HTTP/1.0\r\n\r\n").keepAlive()).isFalse();
    assertThat(request("GET / HTTP/1.1\r\nHost: a\r\nConnection: TE, close\r\n\r\n").keepAlive()).isFalse();
    assertThat(request("GET / HTTP/1.1\r\nHost: a\r\n\r\n").method()).isSameAs(HttpMethod.GET);
  }

  @Test
  void writesTheBackendsHeadAsTheHeaderMapEditDoes() {
    RawRequest r = request("GET /a HTTP/1.1\r\nHost: shop\r\nConnection: keep-alive\r\nAccept: */*\r\n\r\n");
    assertThat(toBackend(r, "shop", EdgeLimits.DEFAULTS)).isEqualTo("GET /a HTTP/1.1\r\nAccept: */*\r\n"
        + "X-Forwarded-For: 10.0.0.7\r\nX-Forwarded-Proto: http\r\nX-Forwarded-Host: shop\r\n"
        + "Forwarded: for=10.0.0.7;proto=http;host=shop\r\nVia: 1.1 fairway\r\nHost: shop\r\n\r\n");
  }

  @Test
  void readsGrpcFieldsAndForwardsReplacedFieldsAfterTheClients() {
    RawRequest r = request("GET /a HTTP/1.1\r\nHost: shop\r\nContent-Type: application/grpc+proto\r\n"
        + "Grpc-Timeout: 5S\r\nAccept: */*\r\n\r\n");
    assertThat(r.grpc()).isTrue();
    assertThat(r.grpcTimeout()).isEqualTo("5S");
    r.forwardField("grpc-timeout", "4690123u");
    r.forwardField("x-fairway-attempt", "2");
    r.forwardField("accept", null);
    assertThat(toBackend(r, "shop", EdgeLimits.DEFAULTS)).isEqualTo("GET /a HTTP/1.1\r\nContent-Type: application/grpc+proto\r\n"
        + "X-Forwarded-For: 10.0.0.7\r\nX-Forwarded-Proto: http\r\n"
        + "X-Forwarded-Host: shop\r\nForwarded: for=10.0.0.7;proto=http;host=shop\r\n"
        + "Via: 1.1 fairway\r\ngrpc-timeout: 4690123u\r\nx-fairway-attempt: 2\r\n"
        + "Host: shop\r\n\r\n");
    RawRequest plain = request("GET /a HTTP/1.1\r\nHost: shop\r\nContent-Type: application/grpc-web\r\n\r\n");
    assertThat(plain.grpc()).isFalse();
    assertThat(plain.grpcTimeout()).isNull();
  }

  @Test
  void writesTheBackendsHeadToAnHttp2StreamAsOneWholeRequestWithTeTrailers() {
    RawRequest r = request("GET /a HTTP/1.1\r\nHost: shop\r\nTE: trailers\r\nAccept: */*\r\n\r\n");
    r.toBackend("10.0.0.7", false, "shop", 0, "127.0.0.1:9001", ForwardingRules.VIA_TOKEN_H2,
        UnpooledByteBufAllocator.DEFAULT);
    List<Object> written = new ArrayList<>();
    int[] flushes = {0};
    StreamWriter stream = new StreamWriter() {
      @Override
      public void write(Object msg) {
        written.add(msg);
      }

      @Override
      public void flush() {
        flushes[0]++;
      }

      @Override
      public boolean secure() {
        return false;
      }
    };

    boolean whole = r.writeToStream(stream);

    assertThat(written).hasSize(1);
    assertThat(flushes[0]).isEqualTo(1);
    Http2HeadersFrame sent = (Http2HeadersFrame) written.get(0);
    assertThat(whole).isTrue();
    assertThat(sent.isEndStream()).isTrue();
    assertThat(sent.headers().toString()).isEqualTo("DefaultHttp2Headers[:method: GET, :path: /a, :scheme: http, "
        + ":authority: shop, accept: */*, x-forwarded-for: 10.0.0.7, x-forwarded-proto: http, x-forwarded-host: shop, "
        + "forwarded: for=10.0.0.7;proto=http;host=shop, via: 2 fairway, te: trailers]");
    r.release();
  }

  @Test
  void dropsHopByHopListedAndUnderscoreFieldsAndForgedForwardingFields() {
    RawRequest r = request("GET / HTTP/1.0\r\nConnection: X-Trace\r\nX-Trace: 1\r\nx_user: bob\r\nTE: trailers\r\n"
        + "X-Forwarded-For: 6.6.6.6\r\nX-Forwarded-Port: 1\r\nVia: 1.0 edge\r\nX-Kept: k\r\n\r\n");
    assertThat(r.hasUnderscoreName()).isTrue();
    assertThat(toBackend(r, null, EdgeLimits.DEFAULTS)).isEqualTo("GET / HTTP/1.1\r\nX-Kept: k\r\n"
        + "X-Forwarded-For: 10.0.0.7\r\nX-Forwarded-Proto: http\r\n"
        + "Forwarded: for=10.0.0.7;proto=http\r\nVia: 1.0 edge, 1.1 fairway\r\n"
        + "Host: 127.0.0.1:9001\r\n\r\n");
  }

  @Test
  void keepsWhatTrustedHopsForwarded() {
    RawRequest r = request("GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 6.6.6.6, 192.0.2.1\r\n"
        + "X-Forwarded-Proto: https\r\nX-Forwarded-Host: example.org\r\n\r\n");
    assertThat(r.hasUnderscoreName()).isFalse();
    assertThat(toBackend(r, "a", ONE_TRUSTED_HOP)).isEqualTo("GET / HTTP/1.1\r\n"
        + "X-Forwarded-For: 192.0.2.1, 10.0.0.7\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: example.org\r\n"
        + "Forwarded: for=10.0.0.7;proto=http;host=a\r\nVia: 1.1 fairway\r\nHost: a\r\n\r\n");
  }

  @Test
  void aBodilessStreamBecomesTheHttp11HeadItStandsFor() {
    Http2Headers h = new DefaultHttp2Headers(false).method("GET").path("/a?b=1").scheme("http").authority("shop");
    h.add("accept", "text/plain").add("cookie", "a=1").add("host", "ignored").add("cookie", "b=2");

    assertThat(new String(RawRequest.ofHttp2(h).bytes(), StandardCharsets.ISO_8859_1)).isEqualTo(
        "GET /a?b=1 HTTP/1.1\r\nhost: shop\r\naccept: text/plain\r\ncookie: a=1; b=2\r\n\r\n");
    Http2Headers noAuthority = new DefaultHttp2Headers(false).method("HEAD").path("/").scheme("http");
    noAuthority.add(new AsciiString("host"), new AsciiString("kept")).add("cookie", "c=3");
    assertThat(new String(RawRequest.ofHttp2(noAuthority).bytes(), StandardCharsets.ISO_8859_1)).isEqualTo(
        "HEAD / HTTP/1.1\r\nhost: kept\r\ncookie: c=3\r\n\r\n");
  }

  /** An allocator that remembers the capacity last asked of {@code ioBuffer}: a grown buffer's is larger. */
  private static final class AskedCapacity extends AbstractByteBufAllocator {
    int asked;

    @Override
    public ByteBuf ioBuffer(int initialCapacity) {
      asked = initialCapacity;
      return super.ioBuffer(initialCapacity);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      return newHeapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }
  }

  @Test
  void theBackendsHeadNeverOutgrowsItsBuffer() {
    String[][] cases = {
        {"GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", "127.0.0.1", "false", "", "0"},
        {"GET / HTTP/1.1\r\nHost: " + "h".repeat(200) + ".example\r\n\r\n", "10.0.0.7", "true", "", "0"},
        {"GET /a HTTP/1.1\r\nHost: shop\r\nX-Forwarded-For: 192.0.2.1\r\nForwarded: for=192.0.2.1\r\n"
            + "Via: 1.1 edge\r\nX-Forwarded-Host: example.org\r\n\r\n",
            "2001:db8:85a3:8d3:1319:8a2e:370:7348", "true", "", "1"},
        {"GET /a HTTP/1.1\r\nHost: shop\r\n\r\n", "10.0.0.7", "false", "/" + "rewritten/".repeat(30), "0"},
    };
    for (String[] c : cases) {
      RawRequest r = request(c[0]);
      if (!c[3].isEmpty()) {
        r.forwardTarget(c[3]);
      }
      AskedCapacity alloc = new AskedCapacity();
      r.toBackend(c[1], Boolean.parseBoolean(c[2]), r.host(), Integer.parseInt(c[4]), "127.0.0.1:9001",
          ForwardingRules.VIA_TOKEN, alloc);
      try {
        assertThat(r.backendHead().capacity()).as(c[0]).isEqualTo(alloc.asked);
      } finally {
        r.release();
      }
    }
    RawRequest wrk = request("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
    wrk.toBackend("127.0.0.1", false, wrk.host(), 0, "127.0.0.1:9001", ForwardingRules.VIA_TOKEN, new AskedCapacity());
    assertThat(wrk.backendHead().readableBytes()).isEqualTo(204);
    assertThat(RawRequest.headRoom(40, "127.0.0.1", "127.0.0.1:8080", ForwardingRules.VIA_TOKEN)).isEqualTo(303);
    wrk.release();
  }
}
