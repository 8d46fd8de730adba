package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.HeaderEdit;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link H2Request}: an HTTP/2 client's block edited into the backend's, for an HTTP/2 and an HTTP/1.1 backend. */
class H2RequestTest {
  private static Http2Headers grpcCall() {
    return new DefaultHttp2Headers(false).method("POST").path("/p.S/Call").scheme("http").authority("shop")
        .add("content-type", "application/grpc").add("te", "trailers").add("grpc-timeout", "5S")
        .add("x-forwarded-for", "6.6.6.6").add("via", "2 edge");
  }

  private static void toBackend(H2Request r, String authority, int trustedHops) {
    r.toBackend("10.0.0.7", false, authority, trustedHops, "127.0.0.1:9001", ForwardingRules.VIA_TOKEN_H2,
        UnpooledByteBufAllocator.DEFAULT);
  }

  /** A stream that keeps what is written to it. */
  private static final class Stream implements StreamWriter {
    final List<Object> written = new ArrayList<>();
    final boolean secure;

    Stream(boolean secure) {
      this.secure = secure;
    }

    @Override
    public void write(Object msg) {
      written.add(msg);
    }

    @Override
    public void flush() {
    }

    @Override
    public boolean secure() {
      return secure;
    }

    Http2HeadersFrame head() {
      return (Http2HeadersFrame) written.get(0);
    }
  }

  @Test
  void readsTheClientsBlock() {
    Http2Headers h = grpcCall().add("expect", "100-Continue");
    H2Request r = new H2Request(h);
    assertThat(r.method()).isSameAs(HttpMethod.POST);
    assertThat(r.uri()).isEqualTo("/p.S/Call");
    assertThat(r.host()).isEqualTo("shop");
    assertThat(r.grpc()).isTrue();
    assertThat(r.grpcTimeout()).isEqualTo("5S");
    assertThat(r.field("via")).isEqualTo("2 edge");
    assertThat(r.expectContinue()).isTrue();
    assertThat(r.keepAlive()).isTrue();
    assertThat(r.hasBody()).isTrue();
    assertThat(r.hasUnderscoreName()).isFalse();
    assertThat(new H2Request(new DefaultHttp2Headers(false).method("PUT").path("/").add("host", "h").add("x_user", "b"))
        .host()).isEqualTo("h");
    assertThat(new H2Request(new DefaultHttp2Headers(false).method("PUT").path("/").add("x_user", "b")).hasUnderscoreName())
        .isTrue();
  }

  @Test
  void anHttp2BackendGetsTheClientsBlockItselfEditedByTheRules() {
    Http2Headers h = grpcCall();
    H2Request r = new H2Request(h);
    r.forwardField("grpc-timeout", "4690123u");
    r.forwardField("x-request-id", "id7");
    toBackend(r, "shop", 0);
    Stream stream = new Stream(true);

    assertThat(r.writeToStream(stream)).isFalse();

    assertThat(stream.written).hasSize(1);
    assertThat(stream.head().isEndStream()).isFalse();
    assertThat(stream.head().headers()).isSameAs(h);
    assertThat(h.toString()).isEqualTo("DefaultHttp2Headers[:method: POST, :path: /p.S/Call, :authority: shop, "
        + ":scheme: https, content-type: application/grpc, grpc-timeout: 4690123u, x-request-id: id7, "
        + "x-forwarded-for: 10.0.0.7, x-forwarded-proto: http, x-forwarded-host: shop, "
        + "forwarded: for=10.0.0.7;proto=http;host=shop, via: 2 edge, 2 fairway, te: trailers]");
  }

  @Test
  void dropsConnectionFieldsUnderscoreNamesAndForgedForwardingFieldsAndKeepsTrustedHops() {
    Http2Headers h = new DefaultHttp2Headers(false).method("POST").path("/up").scheme("http").authority("a")
        .add("host", "evil").add("x_user", "bob").add("x-forwarded-port", "1").add("x-kept", "k")
        .add("te", "gzip").add("x-forwarded-proto", "https").add("x-forwarded-for", "6.6.6.6, 192.0.2.1");
    H2Request r = new H2Request(h);
    toBackend(r, "a", 1);
    r.writeToStream(new Stream(false));
    assertThat(h.toString()).isEqualTo("DefaultHttp2Headers[:method: POST, :path: /up, :authority: a, :scheme: http, "
        + "x-kept: k, x-forwarded-for: 192.0.2.1, 10.0.0.7, x-forwarded-proto: https, x-forwarded-host: a, "
        + "forwarded: for=10.0.0.7;proto=http;host=a, via: 2 fairway]");
  }

  @Test
  void aRetryEditsACopyAndLeavesTheWrittenBlockAlone() {
    Http2Headers h = new DefaultHttp2Headers(false).method("POST").path("/up").scheme("http");
    H2Request r = new H2Request(h);
    toBackend(r, null, 0);
    Stream first = new Stream(false);
    r.writeToStream(first);
    r.forwardField("x-fairway-attempt", "2");
    r.toBackend("10.0.0.7", false, null, 0, "127.0.0.1:9002", ForwardingRules.VIA_TOKEN_H2, UnpooledByteBufAllocator.DEFAULT);
    Stream second = new Stream(false);
    r.writeToStream(second);

    assertThat(first.head().headers().authority()).hasToString("127.0.0.1:9001");
    assertThat(first.head().headers().get("x-fairway-attempt")).isNull();
    assertThat(second.head().headers()).isNotSameAs(h);
    assertThat(second.head().headers().authority()).hasToString("127.0.0.1:9002");
    assertThat(second.head().headers().get("x-fairway-attempt")).hasToString("2");
    assertThat(second.head().headers().getAll("via")).hasSize(1);
  }

  @Test
  void appliesTheTargetRewriteAndTheServicesEditAfterTheRules() {
    Http2Headers h = new DefaultHttp2Headers(false).method("POST").path("/api/up").scheme("http").authority("u@shop")
        .add("cookie", "s=1").add("x-env", "dev").add("accept", "*/*");
    H2Request r = new H2Request(h);
    r.forwardTarget("/up");
    r.editFields(new HeaderEdit(Map.of("X-Env", "prod"), Map.of("X-Tag", "a"), List.of("Cookie")));
    toBackend(r, "u@shop", 0);
    r.writeToStream(new Stream(false));
    assertThat(r.uri()).isEqualTo("/api/up");
    assertThat(h.toString()).isEqualTo("DefaultHttp2Headers[:method: POST, :path: /up, :authority: shop, :scheme: http, "
        + "accept: */*, x-forwarded-for: 10.0.0.7, x-forwarded-proto: http, x-forwarded-host: u@shop, "
        + "forwarded: for=10.0.0.7;proto=http;host=\"u@shop\", via: 2 fairway, x-env: prod, x-tag: a]");
  }

  @Test
  void anHttp11BackendGetsTheBlockAsAChunkedRequestHead() {
    Http2Headers h = grpcCall().add("cookie", "a=1").add("cookie", "b=2");
    H2Request r = new H2Request(h);
    toBackend(r, "shop", 0);
    EmbeddedChannel ch = new EmbeddedChannel();

    assertThat(r.writeTo(ch, null)).isFalse();
    ch.flush();

    HttpRequest sent = ch.readOutbound();
    assertThat(sent.method()).isSameAs(HttpMethod.POST);
    assertThat(sent.uri()).isEqualTo("/p.S/Call");
    assertThat(sent.headers().toString()).isEqualTo("DefaultHttpHeaders[host: shop, content-type: application/grpc, "
        + "grpc-timeout: 5S, x-forwarded-for: 10.0.0.7, x-forwarded-proto: http, x-forwarded-host: shop, "
        + "forwarded: for=10.0.0.7;proto=http;host=shop, via: 2 edge, 2 fairway, cookie: a=1; b=2, "
        + "transfer-encoding: chunked]");
    assertThat((Object) ch.readOutbound()).isNull();
    Http2Headers sized = new DefaultHttp2Headers(false).method("PUT").path("/").add("content-length", "5");
    H2Request put = new H2Request(sized);
    toBackend(put, null, 0);
    put.writeTo(ch, null);
    ch.flush();
    assertThat(((HttpRequest) ch.readOutbound()).headers().get("transfer-encoding")).isNull();
  }
}
