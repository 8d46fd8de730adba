package dev.fairway.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.config.UpstreamTls;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultEventLoop;
import io.netty.handler.ssl.SslHandler;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;

/** Pool keys keep cleartext and TLS profiles apart; handlers carry SNI, host-name checks and ALPN as configured. */
class UpstreamTlsContextsTest {
  private static final String CA = "src/test/resources/upstream-tls/ca.pem";
  private final UpstreamTlsContexts contexts = new UpstreamTlsContexts();

  private static UpstreamTls profile(String ca, boolean verify, String serverName) {
    return new UpstreamTls(Optional.ofNullable(ca), verify, Optional.ofNullable(serverName), Optional.empty(),
        Optional.empty());
  }

  @Test
  void cleartextAndEachTlsProfileHaveTheirOwnPoolKey() {
    UpstreamTls a = profile(CA, true, null);
    UpstreamTls b = profile(CA, true, "api.internal");

    assertThat(contexts.poolKey("127.0.0.1:9001", null)).isEqualTo("127.0.0.1:9001");
    assertThat(contexts.poolKey("127.0.0.1:9001", a)).isNotEqualTo("127.0.0.1:9001")
        .isEqualTo(contexts.poolKey("127.0.0.1:9001", profile(CA, true, null)))
        .isNotEqualTo(contexts.poolKey("127.0.0.1:9001", b))
        .isNotEqualTo(contexts.poolKey("127.0.0.1:9002", a));
  }

  @Test
  void aVerifyingHandlerSendsTheServerNameAndChecksIt() throws SSLException {
    SslHandler h = contexts.handler(profile(CA, true, "api.internal"), ByteBufAllocator.DEFAULT, "127.0.0.1", 9443,
        500);

    SSLParameters p = h.engine().getSSLParameters();
    assertThat(h.engine().getUseClientMode()).isTrue();
    assertThat(h.engine().getPeerHost()).isEqualTo("api.internal");
    assertThat(p.getEndpointIdentificationAlgorithm()).isEqualTo("HTTPS");
    assertThat(p.getServerNames()).containsExactly(new SNIHostName("api.internal"));
    assertThat(h.getHandshakeTimeoutMillis()).isEqualTo(500);
  }

  @Test
  void verifyFalseChecksNoNameAndAnIpAddressGetsNoSni() throws SSLException {
    SslHandler h = contexts.handler(profile(null, false, null), ByteBufAllocator.DEFAULT, "127.0.0.1", 9443, 500);

    SSLParameters p = h.engine().getSSLParameters();
    assertThat(p.getEndpointIdentificationAlgorithm()).isNull();
    assertThat(p.getServerNames()).isNullOrEmpty();
  }

  @Test
  void aMissingCaFileIsAnSslException() {
    assertThatThrownBy(() -> contexts.handler(profile("/no/such/ca.pem", true, null), ByteBufAllocator.DEFAULT,
        "127.0.0.1", 9443, 500)).isInstanceOf(SSLException.class);
  }

  @Test
  void aProfilesContextIsMadeOffTheLoopAndItsFailureReported() throws Exception {
    DefaultEventLoop loop = new DefaultEventLoop();
    try {
      UpstreamTls good = profile(CA, true, null);
      CompletableFuture<Throwable> made = new CompletableFuture<>();
      assertThat(contexts.ready(good)).isFalse();
      contexts.prepare(good, loop,
          failure -> made.complete(loop.inEventLoop() ? failure : new AssertionError("off loop")));
      assertThat(made.get(10, TimeUnit.SECONDS)).isNull();
      assertThat(contexts.ready(good)).isTrue();

      UpstreamTls missing = profile("/no/such/ca.pem", true, null);
      CompletableFuture<Throwable> refused = new CompletableFuture<>();
      contexts.prepare(missing, loop, refused::complete);
      assertThat(refused.get(10, TimeUnit.SECONDS)).isInstanceOf(SSLException.class);
      assertThat(contexts.ready(missing)).isFalse();
    } finally {
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }
}
