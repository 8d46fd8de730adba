package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Header fields between client, Fairway and a real backend: hop-by-hop fields (RFC 9110 §7.6.1
 * and every field named in {@code Connection}) are removed in both directions, the forwarding
 * fields are set on the request, {@code Via} is appended on both, and the backend signals
 * {@code Lame-Duck} and {@code endpoint-load-metrics} never reach the client. The client side is a
 * raw socket so that the fields on the wire are exactly the ones written here.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class HopByHopHeadersTest {
  private final AtomicReference<MultiMap> seenByBackend = new AtomicReference<>();
  private Fairway fairway;

  @BeforeEach
  void start(Vertx vertx) {
    TestBackend b = TestBackend.start(vertx, req -> {
      seenByBackend.set(MultiMap.caseInsensitiveMultiMap().addAll(req.headers()));
      req.response()
          .putHeader("Connection", "X-Private")
          .putHeader("X-Private", "secret")
          .putHeader("Keep-Alive", "timeout=9")
          .putHeader("Upgrade", "foo/2")
          .putHeader("Trailer", "X-Sum")
          .putHeader("Proxy-Authenticate", "Basic realm=x")
          .putHeader("Proxy-Connection", "keep-alive")
          .putHeader("Lame-Duck", "true")
          .putHeader("endpoint-load-metrics", "TEXT cpu_utilization=0.42, rps_fractional=120")
          .putHeader("Via", "1.1 backend")
          .putHeader("X-Public", "yes")
          .end("ok");
    });
    fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 5)).build());
  }

  @Test
  void hopByHopFieldsAreRemovedAndForwardingFieldsSetOnTheRequest() throws Exception {
    RawHttp.Response r = RawHttp.exchange(fairway.proxyPort(), "GET /h HTTP/1.1\r\n"
        + "Host: shop.example:8443\r\n"
        + "Connection: keep-alive,  X-SECRET\r\n"
        + "Keep-Alive: timeout=5\r\n"
        + "TE: trailers\r\n"
        + "Trailer: X-Sum\r\n"
        + "Upgrade: foo/1\r\n"
        + "Proxy-Connection: keep-alive\r\n"
        + "Proxy-Authorization: Basic YTpi\r\n"
        + "X-Secret: hidden\r\n"
        + "X-Keep: yes\r\n"
        + "X-Forwarded-For: 10.0.0.1\r\n"
        + "X-Forwarded-Host: spoofed.example\r\n"
        + "X-Forwarded-Proto: https\r\n"
        + "Via: 1.0 edge\r\n"
        + "\r\n");

    assertThat(r.status()).isEqualTo(200);
    MultiMap seen = seenByBackend.get();
    assertThat(seen.names()).map(String::toLowerCase).doesNotContain("connection", "keep-alive", "te", "trailer",
        "upgrade", "proxy-connection", "proxy-authorization", "x-secret");
    assertThat(seen.getAll("X-Keep")).containsExactly("yes");
    assertThat(seen.getAll("Host")).containsExactly("shop.example:8443");
    // trustedHops 0 (default): the client's own X-Forwarded-For is replaced, not extended
    assertThat(seen.getAll("X-Forwarded-For")).containsExactly("127.0.0.1");
    assertThat(seen.getAll("X-Forwarded-Proto")).containsExactly("http");
    assertThat(seen.getAll("X-Forwarded-Host")).containsExactly("shop.example:8443");
    assertThat(seen.getAll("Via")).containsExactly("1.0 edge, 1.1 fairway");
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void fieldsNamedInAnyConnectionLineAreRemoved() throws Exception {
    RawHttp.Response r = RawHttp.exchange(fairway.proxyPort(), "GET /h HTTP/1.1\r\n"
        + "Host: shop.example\r\n"
        + "Connection: keep-alive\r\n"
        + "Connection: X-Secret\r\n"
        + "X-Secret: hidden\r\n"
        + "\r\n");

    assertThat(r.status()).isEqualTo(200);
    assertThat(seenByBackend.get().names()).map(String::toLowerCase).doesNotContain("connection", "x-secret");
    assertThat(seenByBackend.get().getAll("X-Forwarded-For")).containsExactly("127.0.0.1");
    assertThat(seenByBackend.get().getAll("Via")).containsExactly("1.1 fairway");
  }

  @Test
  void hopByHopFieldsAndBackendSignalsAreRemovedFromTheResponse() throws Exception {
    RawHttp.Response r = RawHttp.exchange(fairway.proxyPort(), "GET / HTTP/1.1\r\nHost: shop.example\r\n\r\n");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("ok");
    assertThat(r.names()).doesNotContain("keep-alive", "upgrade", "trailer", "proxy-authenticate",
        "proxy-connection", "x-private", "lame-duck", "endpoint-load-metrics");
    assertThat(r.all("Connection")).noneSatisfy(v -> assertThat(v).containsIgnoringCase("x-private"));
    assertThat(r.all("X-Public")).containsExactly("yes");
    assertThat(r.all("Via")).containsExactly("1.1 backend, 1.1 fairway");
    TestFairway.assertIdleSoon(fairway);
  }
}
