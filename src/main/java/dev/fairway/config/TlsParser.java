package dev.fairway.config;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Parses {@code proxy.tls} into {@link TlsSettings}: every key checked with its JSON path, every
 * file read once so that a missing file, a file that is not PEM or a key that does not match its
 * certificate stops start-up like any other bad value.
 *
 * <p>Example: {@code {"certificates": [{"certPath": "a.pem", "keyPath": "b.key"}],
 * "protocols": ["TLSv1.1"]}} where {@code b.key} is another certificate's key gives
 * {@code proxy.tls.certificates[0].keyPath: "b.key" is invalid; expected the private key of
 * proxy.tls.certificates[0].certPath "a.pem"} and {@code proxy.tls.protocols[0]: "TLSv1.1" is
 * invalid; expected TLSv1.3 or TLSv1.2 (TLSv1.1 and older are insecure)}.
 */
final class TlsParser {
  private TlsParser() {
  }

  /** {@code proxy.tls}, or empty when the key is absent. */
  static Optional<TlsSettings> parse(Node proxy) {
    if (!proxy.has("tls")) {
      proxy.value("tls"); // a known key all the same
      return Optional.empty();
    }
    Node n = proxy.object("tls");
    int port = n.intIn("port", TlsSettings.DEFAULT_PORT, 0, 65535);
    List<TlsSettings.Certificate> certificates = certificates(n);
    List<String> protocols = names(n, "protocols", TlsSettings.PROTOCOLS, true);
    List<String> alpn = names(n, "alpn", TlsSettings.ALPN, false);
    Optional<String> clientCa = Optional.empty();
    if (n.has("clientCa")) {
      String ca = n.requiredString("clientCa");
      if (ca != null && readable(n, "clientCa", ca)) {
        clientCa = Optional.of(ca);
      }
    }
    n.rejectUnknownKeys();
    return Optional.of(new TlsSettings(port, certificates, protocols, alpn, clientCa));
  }

  private static List<TlsSettings.Certificate> certificates(Node n) {
    if (!n.has("certificates")) {
      n.problemAt(n.child("certificates"), "missing; expected a non-empty array of {\"certPath\", \"keyPath\"}");
      return List.of();
    }
    List<Node> nodes = n.objects("certificates");
    if (nodes.isEmpty() && n.value("certificates") instanceof List<?> l && l.isEmpty()) {
      n.problemAt(n.child("certificates"), "empty; expected at least one {\"certPath\", \"keyPath\"}");
    }
    List<TlsSettings.Certificate> out = new ArrayList<>();
    for (Node c : nodes) {
      String certPath = c.requiredString("certPath");
      String keyPath = c.requiredString("keyPath");
      c.rejectUnknownKeys();
      if (certPath != null && keyPath != null) {
        check(c, certPath, keyPath);
        out.add(new TlsSettings.Certificate(c.path(), certPath, keyPath));
      }
    }
    return out;
  }

  /** Reads the pair; records a problem for an unusable file or a key that is not the certificate's. */
  private static void check(Node c, String certPath, String keyPath) {
    X509Certificate leaf = null;
    try {
      leaf = PemFiles.certificates(Path.of(certPath)).get(0);
    } catch (PemFiles.Unusable e) {
      c.problem("certPath", certPath, e.getMessage());
    }
    PrivateKey key = null;
    try {
      key = PemFiles.privateKey(Path.of(keyPath));
    } catch (PemFiles.Unusable e) {
      c.problem("keyPath", keyPath, e.getMessage());
    }
    if (leaf != null && key != null && !PemFiles.matches(key, leaf)) {
      c.problem("keyPath", keyPath, "the private key of " + c.child("certPath") + " \"" + certPath
          + "\" (the key does not match the certificate's public key)");
    }
  }

  private static boolean readable(Node n, String key, String file) {
    try {
      PemFiles.certificates(Path.of(file));
      return true;
    } catch (PemFiles.Unusable e) {
      n.problem(key, file, e.getMessage());
      return false;
    }
  }

  /** A list of names from {@code allowed}, default all of them; TLS versions before 1.2 named as such. */
  private static List<String> names(Node n, String key, List<String> allowed, boolean versions) {
    if (!n.has(key)) {
      return allowed;
    }
    List<?> values = n.array(key, "a JSON array of " + String.join(", ", allowed));
    if (versions && values.isEmpty() && n.value(key) instanceof List<?>) {
      n.problemAt(n.child(key), "empty; expected at least one of " + String.join(", ", allowed));
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      Object v = values.get(i);
      if (v instanceof String s && allowed.contains(s) && !out.contains(s)) {
        out.add(s);
        continue;
      }
      String expected = String.join(" or ", allowed);
      if (versions && v instanceof String s && (s.startsWith("SSL") || s.equals("TLSv1") || s.equals("TLSv1.1"))) {
        expected += " (" + s + " is older than TLSv1.2 and insecure)";
      } else if (v instanceof String s && out.contains(s)) {
        expected += ", each once";
      }
      n.problemAt(n.child(key) + "[" + i + "]", Node.show(v) + " is invalid; expected " + expected);
    }
    return out;
  }
}
