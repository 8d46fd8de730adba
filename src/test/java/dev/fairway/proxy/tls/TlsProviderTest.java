package dev.fairway.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.SslProvider;
import org.junit.jupiter.api.Test;

class TlsProviderTest {
  private static final Throwable NO_NATIVE = new UnsatisfiedLinkError("no netty_tcnative in java.library.path");

  @Test
  void defaultIsOpenSslWhenItLoadsElseTheJdks() {
    assertThat(TlsProvider.choose(null, true, null))
        .isEqualTo(new TlsProvider(SslProvider.OPENSSL, "default: netty-tcnative loaded"));
    assertThat(TlsProvider.choose(" ", false, NO_NATIVE)).isEqualTo(new TlsProvider(SslProvider.JDK,
        "default, as netty-tcnative did not load: java.lang.UnsatisfiedLinkError: no netty_tcnative in java.library.path"));
  }

  @Test
  void thePropertyForcesEitherInAnyCase() {
    assertThat(TlsProvider.choose("jdk", true, null).provider()).isEqualTo(SslProvider.JDK);
    assertThat(TlsProvider.choose(" OpenSSL ", true, null).provider()).isEqualTo(SslProvider.OPENSSL);
    assertThat(TlsProvider.choose("JDK", false, NO_NATIVE).reason()).isEqualTo("-Dfairway.tls.provider=jdk");
  }

  @Test
  void anUnknownNameOrAnOpenSslThatCannotLoadIsRefused() {
    assertThatThrownBy(() -> TlsProvider.choose("boringssl", true, null))
        .hasMessage("-Dfairway.tls.provider must be openssl or jdk, not 'boringssl'");
    assertThatThrownBy(() -> TlsProvider.choose("openssl", false, NO_NATIVE))
        .hasMessage("-Dfairway.tls.provider=openssl, but netty-tcnative does not load here: "
            + "java.lang.UnsatisfiedLinkError: no netty_tcnative in java.library.path");
  }

  @Test
  void thisJvmGetsWhatItsPropertyAsksForAndOpenSslByDefault() {
    String requested = System.getProperty(TlsProvider.PROPERTY, "openssl"); // the tls-jdk run sets jdk
    assertThat(TlsProvider.fromSystem().provider().name()).isEqualToIgnoringCase(requested);
  }
}
