package dev.fairway.config;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How Fairway speaks TLS to a service's {@code https://} backends: whom it trusts, whether it
 * checks the backend's certificate, the name it asks for and checks, and the certificate it shows.
 *
 * <p>Example: {@code "tls": {"caPath": "/etc/fairway/backends-ca.pem", "serverName": "api.internal",
 * "certPath": "/etc/fairway/client.pem", "keyPath": "/etc/fairway/client.key"}} on a service with
 * backend {@code https://10.0.0.7:8443} connects to 10.0.0.7:8443, sends SNI {@code api.internal},
 * accepts only a chain up to that CA whose certificate names {@code api.internal}, and shows the
 * client certificate if the backend asks for one. Without {@code tls} ({@link #DEFAULTS}) the JVM's
 * trust store is used and the certificate must name the URL's host.
 *
 * @param caPath     PEM bundle of the CAs to trust; empty: the JVM's default trust store
 * @param verify     whether the chain and the host name are checked (false: any certificate)
 * @param serverName the name sent as SNI and checked against the certificate; empty: the URL's host
 * @param certPath   PEM chain of the client certificate (mutual TLS), with {@code keyPath}
 * @param keyPath    PEM (PKCS#8) private key of {@code certPath}
 */
public record UpstreamTls(Optional<String> caPath, boolean verify, Optional<String> serverName,
                          Optional<String> certPath, Optional<String> keyPath) {
  /** No {@code tls} object: the JVM's trust store, chain and host name checked, no client certificate. */
  public static final UpstreamTls DEFAULTS = new UpstreamTls(Optional.empty(), true, Optional.empty(),
      Optional.empty(), Optional.empty());
  private static final Pattern IP_LITERAL = Pattern.compile("[0-9.]+|.*:.*");

  /** The name to send as SNI and to verify for a backend whose URL names {@code urlHost}. */
  public String serverNameFor(String urlHost) {
    return serverName.orElse(urlHost);
  }

  /**
   * Whether {@code name} goes out as SNI: a host name does, an IPv4 or IPv6 address does not
   * (RFC 6066 allows no literal addresses).
   */
  public static boolean sendsSni(String name) {
    return !IP_LITERAL.matcher(name).matches();
  }

  /** Whether Fairway shows a client certificate. */
  public boolean mutual() {
    return certPath.isPresent();
  }
}
