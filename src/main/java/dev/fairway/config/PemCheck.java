package dev.fairway.config;

import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * The start-up checks of PEM files ({@link TlsParser}, {@link UpstreamTlsParser}) for bytes read
 * later, when a file changes while running: each failure is one message naming the file and what
 * was expected of it.
 *
 * <p>Example: {@code PemCheck.pair("a.pem", certBytes, "a.key", otherKeyBytes)} throws
 * {@code CertificateException("a.key: expected the private key of a.pem (it does not match the
 * certificate's public key)")}; {@code PemCheck.certificates("ca.pem", "garbage".getBytes())} throws
 * {@code CertificateException("ca.pem: expected PEM certificates (no -----BEGIN CERTIFICATE----- block in it)")}.
 */
public final class PemCheck {
  private PemCheck() {
  }

  /** The certificates of {@code path}'s {@code bytes}, leaf first; at least one. */
  public static List<X509Certificate> certificates(String path, byte[] bytes) throws CertificateException {
    try {
      return PemFiles.certificates(new String(bytes, StandardCharsets.ISO_8859_1));
    } catch (PemFiles.Unusable e) {
      throw new CertificateException(path + ": expected PEM certificates (" + e.getMessage() + ")");
    }
  }

  /** The leaf of the chain {@code cert}, after checking that {@code key} is its private key. */
  public static X509Certificate pair(String certPath, byte[] cert, String keyPath, byte[] key)
      throws CertificateException {
    X509Certificate leaf = certificates(certPath, cert).get(0);
    PrivateKey k;
    try {
      k = PemFiles.privateKey(new String(key, StandardCharsets.ISO_8859_1));
    } catch (PemFiles.Unusable e) {
      throw new CertificateException(keyPath + ": expected " + e.getMessage());
    }
    if (!PemFiles.matches(k, leaf)) {
      throw new CertificateException(keyPath + ": expected the private key of " + certPath
          + " (it does not match the certificate's public key)");
    }
    return leaf;
  }
}
