package dev.fairway.config;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * Reads and validates a service's {@code tls} object (TLS to its {@code https://} backends),
 * recording each problem on the {@link Node} with its JSON path. The files are read now, so that a
 * missing or unreadable file, or a key that does not belong to its certificate, stops the config
 * like any other mistake.
 *
 * <p>Example: {@code {"caPath": "ca.pem", "serverName": "api.internal"}} gives
 * {@code UpstreamTls[caPath=Optional[ca.pem], verify=true, serverName=Optional[api.internal],
 * certPath=Optional.empty, keyPath=Optional.empty]}; {@code {"certPath": "client.pem"}} at
 * {@code services[0].tls} records {@code services[0].tls.keyPath: missing; expected the PEM private
 * key of certPath's certificate}, and {@code {"verify": "no"}} records
 * {@code services[0].tls.verify: "no" is invalid; expected true or false}.
 */
final class UpstreamTlsParser {

  private UpstreamTlsParser() {
  }

  static UpstreamTls parse(Node n) {
    Optional<String> caPath = path(n, "caPath");
    caPath.ifPresent(p -> certificates(n, "caPath", p));
    boolean verify = n.bool("verify", true);
    Optional<String> serverName = Optional.ofNullable(n.string("serverName", null));
    if (serverName.isPresent() && !HostName.isValid(serverName.get())) {
      n.problem("serverName", serverName.get(), "a host name like api.internal (no port, scheme or trailing dot)");
      serverName = Optional.empty();
    }
    Optional<String> certPath = path(n, "certPath");
    Optional<String> keyPath = path(n, "keyPath");
    if (certPath.isPresent() != keyPath.isPresent()) {
      String missing = certPath.isPresent() ? "keyPath" : "certPath";
      n.problemAt(n.child(missing), "missing; expected " + (certPath.isPresent()
          ? "the PEM private key of certPath's certificate" : "the PEM certificate chain of keyPath's key"));
    } else if (certPath.isPresent()) {
      checkPair(n, certPath.get(), keyPath.get());
    }
    n.rejectUnknownKeys();
    return new UpstreamTls(caPath, verify, serverName, certPath, keyPath);
  }

  /** A non-empty string naming a file; empty (after a problem) otherwise. */
  private static Optional<String> path(Node n, String key) {
    Object v = n.value(key);
    if (v == null) {
      return Optional.empty();
    }
    if (v instanceof String s && !s.isBlank()) {
      return Optional.of(s);
    }
    n.problem(key, v, "a non-empty string naming a PEM file");
    return Optional.empty();
  }

  private static List<X509Certificate> certificates(Node n, String key, String file) {
    try {
      return PemFiles.certificates(Path.of(file));
    } catch (PemFiles.Unusable e) {
      n.problem(key, file, e.getMessage());
      return List.of();
    }
  }

  private static void checkPair(Node n, String certFile, String keyFile) {
    List<X509Certificate> chain = certificates(n, "certPath", certFile);
    PrivateKey key;
    try {
      key = PemFiles.privateKey(Path.of(keyFile));
    } catch (PemFiles.Unusable e) {
      n.problem("keyPath", keyFile, e.getMessage());
      return;
    }
    if (!chain.isEmpty() && !PemFiles.matches(key, chain.get(0))) {
      n.problem("keyPath", keyFile, "the private key of the first certificate in certPath " + certFile
          + " (this key does not match it)");
    }
  }
}
