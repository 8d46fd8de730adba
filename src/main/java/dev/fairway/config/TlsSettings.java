package dev.fairway.config;

import java.util.List;
import java.util.Optional;

/**
 * TLS termination on the client-facing listener ({@code proxy.tls}).
 *
 * <p>Example: {@code {"port": 8443, "certificates": [{"certPath": "a.pem", "keyPath": "a.key"},
 * {"certPath": "wild.pem", "keyPath": "wild.key"}]}} listens for TLS on 8443 (next to the cleartext
 * {@code proxy.port}); a client sending SNI {@code api.example.com} gets {@code wild.pem} if its SANs
 * include {@code *.example.com}, and a client with no SNI, or a name no certificate covers, gets
 * {@code a.pem}. Protocols default to TLS 1.3 and 1.2, ALPN offers {@code h2} then
 * {@code http/1.1}; with {@code clientCa} every client must present a certificate that CA signed.
 *
 * @param port         the TLS listener's port (0 picks a free one)
 * @param certificates the server certificates, the first the default; never empty
 * @param protocols    enabled protocol versions, {@code TLSv1.3} and/or {@code TLSv1.2}
 * @param alpn         ALPN protocols offered, in preference order ({@code h2}, {@code http/1.1}); empty: no ALPN
 * @param clientCa     PEM bundle of the CAs that sign client certificates; present: mTLS required
 */
public record TlsSettings(int port, List<Certificate> certificates, List<String> protocols, List<String> alpn,
                          Optional<String> clientCa) {
  /** The TLS port when {@code proxy.tls.port} is absent. */
  public static final int DEFAULT_PORT = 8443;
  /** The protocol versions Fairway accepts in {@code protocols}. */
  public static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");
  /** The ALPN protocol names Fairway accepts in {@code alpn}. */
  public static final List<String> ALPN = List.of("h2", "http/1.1");

  public TlsSettings {
    certificates = List.copyOf(certificates);
    protocols = List.copyOf(protocols);
    alpn = List.copyOf(alpn);
  }

  /**
   * One server certificate.
   *
   * @param path     its JSON path ({@code proxy.tls.certificates[0]}), for log lines
   * @param certPath PEM file with the certificate chain, leaf first
   * @param keyPath  PEM file with the leaf's private key (PKCS#8, unencrypted)
   */
  public record Certificate(String path, String certPath, String keyPath) {
  }
}
