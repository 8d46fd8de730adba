package dev.fairway.proxy.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.util.Locale;

/**
 * Which TLS implementation Fairway uses, on the listener and to {@code https://} backends alike:
 * OpenSSL (BoringSSL from {@code netty-tcnative-boringssl-static}) when it loads, else the JDK's.
 * The system property {@code fairway.tls.provider} ({@code openssl} or {@code jdk}) forces one.
 *
 * <p>Example: {@code choose(null, true, null)} is OpenSSL ("default: netty-tcnative loaded");
 * {@code choose(null, false, cause)} is the JDK's, with the cause as the reason;
 * {@code choose("jdk", true, null)} is the JDK's ("-Dfairway.tls.provider=jdk");
 * {@code choose("openssl", false, cause)} and {@code choose("boring", true, null)} throw, and
 * {@code Main} exits 2 with the message.
 *
 * @param provider Netty's name for the implementation
 * @param reason   why it was chosen, for the startup log
 */
public record TlsProvider(SslProvider provider, String reason) {
  /** The system property that forces a provider. */
  public static final String PROPERTY = "fairway.tls.provider";

  /**
   * The provider for {@code requested} (the property's value, {@code null} when unset).
   *
   * @throws IllegalArgumentException for a value that is not {@code openssl} or {@code jdk}, or
   *                                  {@code openssl} when it cannot load
   */
  public static TlsProvider choose(String requested, boolean opensslLoads, Throwable whyNot) {
    if (requested == null || requested.isBlank()) {
      return opensslLoads
          ? new TlsProvider(SslProvider.OPENSSL, "default: netty-tcnative loaded")
          : new TlsProvider(SslProvider.JDK, "default, as netty-tcnative did not load: " + whyNot);
    }
    switch (requested.trim().toLowerCase(Locale.ROOT)) {
      case "jdk":
        return new TlsProvider(SslProvider.JDK, "-D" + PROPERTY + "=jdk");
      case "openssl":
        if (!opensslLoads) {
          throw new IllegalArgumentException("-D" + PROPERTY + "=openssl, but netty-tcnative does not load here: "
              + whyNot);
        }
        return new TlsProvider(SslProvider.OPENSSL, "-D" + PROPERTY + "=openssl");
      default:
        throw new IllegalArgumentException("-D" + PROPERTY + " must be openssl or jdk, not '" + requested + "'");
    }
  }

  /** The provider this JVM's {@code fairway.tls.provider} property asks for. */
  public static TlsProvider fromSystem() {
    String requested = System.getProperty(PROPERTY);
    if ("jdk".equalsIgnoreCase(requested == null ? null : requested.trim())) {
      return choose(requested, false, null); // no need to load the native library
    }
    return choose(requested, OpenSsl.isAvailable(), OpenSsl.unavailabilityCause());
  }

  /** How the startup log names it: "OpenSSL (BoringSSL 1.1.1, netty-tcnative)" or "JDK". */
  public String describe() {
    return provider == SslProvider.OPENSSL ? "OpenSSL (" + OpenSsl.versionString() + ", netty-tcnative)" : "JDK";
  }
}
