package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@link ForwardingRules}: one verdict per field name, the same for bytes and for decoded names. */
class ForwardingRulesTest {
  private static String requestRules(String connection, String... names) {
    return Arrays.stream(names).map(n -> {
      byte[] b = ("x" + n + "y").getBytes(StandardCharsets.ISO_8859_1);
      ForwardingRules.Rule bytes = ForwardingRules.request(b, 1, n.length(), connection);
      ForwardingRules.Rule decoded = ForwardingRules.request(n, connection);
      ForwardingRules.Rule ascii = ForwardingRules.request(new AsciiString(n), connection);
      return bytes == decoded && decoded == ascii ? bytes.name() : "MISMATCH(" + n + ")";
    }).collect(Collectors.joining(" "));
  }

  private static String responseRules(String connection, String... names) {
    return Arrays.stream(names).map(n -> {
      byte[] b = n.getBytes(StandardCharsets.ISO_8859_1);
      ForwardingRules.Rule bytes = ForwardingRules.response(b, 0, b.length, connection);
      return bytes == ForwardingRules.response(n, connection) ? bytes.name() : "MISMATCH(" + n + ")";
    }).collect(Collectors.joining(" "));
  }

  @Test
  void requestFieldsAreKeptDroppedOrReadAsEarlierHops() {
    assertThat(requestRules(null, "Accept", "Keep-Alive", "TE", "Host", "Expect", "Upgrade", "x_user", "Via",
        "X-Forwarded-For", "x-forwarded-proto", "X-FORWARDED-HOST", "X-Forwarded-Port", "X-Forwarded", "Cookie"))
        .isEqualTo("KEEP DROP DROP DROP DROP DROP DROP PRIOR_VIA PRIOR_FOR PRIOR_PROTO PRIOR_HOST DROP KEEP KEEP");
  }

  @Test
  void fieldsNamedInConnectionAreDroppedInAnyCaseAndSpacing() {
    assertThat(requestRules(" x-trace ,\tX-Debug", "X-Trace", "x-debug", "X-Tracer", "Trace"))
        .isEqualTo("DROP DROP KEEP KEEP");
  }

  @Test
  void responsesLoseHopByHopFieldsAndTheBackendSignals() {
    assertThat(responseRules("x-a", "Server", "Lame-Duck", "endpoint-load-metrics", "Endpoint-Load-Metrics-Bin",
        "Transfer-Encoding", "Via", "X-A", "Set-Cookie", "x_b"))
        .isEqualTo("KEEP DROP DROP DROP DROP PRIOR_VIA DROP KEEP KEEP");
  }

  @Test
  void trailersKeepWhatMayBeATrailerAndDropFramingRoutingAuthAndPseudoFields() {
    HttpHeaders t = new DefaultHttpHeaders(false).add("grpc-status", "0").add("Content-Length", "5").add("host", "evil")
        .add("TE", "trailers").add("Authorization", "Basic YTpi").add(":path", "/x").add("x-checksum", "42")
        .add("Set-Cookie", "a=1").add("Lame-Duck", "true").add("grpc-message", "ok");

    ForwardingRules.trailers(t);

    assertThat(t.names()).containsExactly("grpc-status", "x-checksum", "grpc-message");
  }

  @Test
  void teTrailersIsKeptOnlyWhenListed() {
    assertThat(Arrays.asList(ForwardingRules.teTrailers("trailers"), ForwardingRules.teTrailers("deflate, Trailers"),
        ForwardingRules.teTrailers("gzip"), ForwardingRules.teTrailers(null))).containsExactly(true, true, false, false);
  }

  @Test
  void forwardingValuesTrustOnlyTheConfiguredHops() {
    assertThat(ForwardingRules.xForwardedFor("6.6.6.6, 10.0.0.1", "127.0.0.1", 0)).isEqualTo("127.0.0.1");
    assertThat(ForwardingRules.xForwardedFor("6.6.6.6, 10.0.0.1", "127.0.0.1", 1)).isEqualTo("10.0.0.1, 127.0.0.1");
    assertThat(ForwardingRules.xForwardedFor("6.6.6.6,10.0.0.1", "127.0.0.1", 5))
        .isEqualTo("6.6.6.6, 10.0.0.1, 127.0.0.1");
    assertThat(ForwardingRules.xForwardedFor(null, "127.0.0.1", 1)).isEqualTo("127.0.0.1");
    assertThat(ForwardingRules.xForwardedProto("https", false, 0)).isEqualTo("http");
    assertThat(ForwardingRules.xForwardedProto("http", true, 0)).isEqualTo("https");
    assertThat(ForwardingRules.xForwardedProto("https", false, 1)).isEqualTo("https");
    assertThat(ForwardingRules.xForwardedHost("edge", "shop", 0)).isEqualTo("shop");
    assertThat(ForwardingRules.xForwardedHost("edge", "shop", 1)).isEqualTo("edge");
    assertThat(ForwardingRules.xForwardedHost(null, null, 1)).isNull();
    assertThat(ForwardingRules.via(null, ForwardingRules.VIA_TOKEN_H2)).isEqualTo("2 fairway");
    assertThat(ForwardingRules.via(ForwardingRules.append("1.0 a", "1.1 b"), ForwardingRules.VIA_TOKEN))
        .isEqualTo("1.0 a, 1.1 b, 1.1 fairway");
  }
}
