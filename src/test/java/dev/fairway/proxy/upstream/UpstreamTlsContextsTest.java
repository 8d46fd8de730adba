package dev.fairway.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.config.FileSnapshot;
import dev.fairway.config.UpstreamTls;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultEventLoop;
import io.netty.handler.ssl.SslHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  /** The profile's handler once its context is made (as the pool asks: after {@code prepare}). */
  private SslHandler handler(UpstreamTls profile, String host) throws Exception {
    contexts.files(profile).handle((f, e) -> null).get(10, TimeUnit.SECONDS);
    return contexts.handler(profile, ByteBufAllocator.DEFAULT, host, 9443, 500);
  }

  @Test
  void aVerifyingHandlerSendsTheServerNameAndChecksIt() throws Exception {
    handler(profile(CA, true, "api.internal"), "127.0.0.1");
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
  void verifyFalseChecksNoNameAndAnIpAddressGetsNoSni() throws Exception {
    SslHandler h = handler(profile(null, false, null), "127.0.0.1");

    SSLParameters p = h.engine().getSSLParameters();
    assertThat(p.getEndpointIdentificationAlgorithm()).isNull();
    assertThat(p.getServerNames()).isNullOrEmpty();
  }

  @Test
  void aMissingCaFileIsAnSslException() {
    assertThatThrownBy(() -> handler(profile("/no/such/ca.pem", true, null), "127.0.0.1"))
        .isInstanceOf(SSLException.class).hasMessageContaining("/no/such/ca.pem: no such file");
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
      assertThat(contexts.ready(missing)).as("the failure is kept until the file changes").isTrue();
    } finally {
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  @Test
  void racingConnectsShareOneBuildAndAFailureIsKeptUntilTheFileChanges(@TempDir Path dir) throws Exception {
    Path ca = dir.resolve("ca.pem");
    UpstreamTls p = profile(ca.toString(), true, null);
    CompletableFuture<FileSnapshot> first = contexts.files(p);
    CompletableFuture<FileSnapshot> second = contexts.files(p);
    assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(SSLException.class)
        .hasMessageContaining("no such file");

    Files.copy(Path.of(CA), ca);
    assertThatThrownBy(() -> contexts.handler(p, ByteBufAllocator.DEFAULT, "127.0.0.1", 9443, 500))
        .as("not read again on every connect").isInstanceOf(SSLException.class).hasMessageContaining("no such file");
    contexts.rescan();
    assertThat(contexts.handler(p, ByteBufAllocator.DEFAULT, "127.0.0.1", 9443, 500)).isNotNull();
    assertThatThrownBy(() -> second.get(10, TimeUnit.SECONDS)).as("one build, shared").hasCauseInstanceOf(SSLException.class);

    UpstreamTls good = profile(CA, true, null);
    assertThat(contexts.files(good).get(10, TimeUnit.SECONDS)).isSameAs(contexts.files(good).get(10, TimeUnit.SECONDS));
  }

  @Test
  void retainForgetsTheContextsAndPoolKeysOfProfilesNoLongerUsed() throws Exception {
    UpstreamTls kept = profile(CA, true, null);
    UpstreamTls dropped = profile(CA, true, "api.internal");
    contexts.files(kept).get(10, TimeUnit.SECONDS);
    contexts.files(dropped).get(10, TimeUnit.SECONDS);
    String keptKey = contexts.poolKey("127.0.0.1:9001", kept);
    String droppedKey = contexts.poolKey("127.0.0.1:9001", dropped);

    contexts.retain(List.of(kept));

    assertThat(contexts.ready(kept)).isTrue();
    assertThat(contexts.ready(dropped)).isFalse();
    assertThat(contexts.poolKey("127.0.0.1:9001", kept)).isSameAs(keptKey);
    assertThat(contexts.poolKey("127.0.0.1:9001", dropped)).isNotEqualTo(droppedKey);
  }
}
