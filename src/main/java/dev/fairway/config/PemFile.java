package dev.fairway.config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PEM certificates and PKCS#8 private keys with the JDK alone, so that a configuration can
 * be checked before anything uses it; each failure is an {@link IOException} whose message says
 * what is wrong in a few words.
 *
 * <p>Example: {@code certificates(Path.of("ca.pem"))} returns the bundle's certificates;
 * {@code privateKey(Path.of("client.key"))} an EC key for a {@code BEGIN PRIVATE KEY} block, and
 * fails with {@code "not an unencrypted PKCS#8 key (BEGIN PRIVATE KEY)"} for a {@code BEGIN RSA
 * PRIVATE KEY} one; {@code matches(key, cert)} tells whether the key signs what the certificate's
 * public key verifies.
 */
final class PemFile {
  private static final Pattern KEY = Pattern.compile(
      "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
  /** Key algorithms tried in turn on a PKCS#8 key, and the signature that proves a key matches. */
  private static final Map<String, String> SIGNATURES = Map.of("EC", "SHA256withECDSA", "RSA", "SHA256withRSA",
      "Ed25519", "Ed25519", "Ed448", "Ed448", "DSA", "SHA256withDSA", "RSASSA-PSS", "");

  private PemFile() {
  }

  /** The X.509 certificates of a PEM file, at least one. */
  static List<X509Certificate> certificates(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory x509 = CertificateFactory.getInstance("X.509");
      for (Certificate c : x509.generateCertificates(new ByteArrayInputStream(bytes))) {
        out.add((X509Certificate) c);
      }
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new IOException("not a PEM file of certificates");
    }
    if (out.isEmpty()) {
      throw new IOException("no certificate in it");
    }
    return out;
  }

  /** The unencrypted PKCS#8 private key of a PEM file. */
  static PrivateKey privateKey(Path file) throws IOException {
    Matcher m = KEY.matcher(Files.readString(file, StandardCharsets.ISO_8859_1));
    if (!m.find()) {
      throw new IOException("not an unencrypted PKCS#8 key (BEGIN PRIVATE KEY)");
    }
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(m.group(1).trim());
    } catch (IllegalArgumentException e) {
      throw new IOException("bad base64 in the key");
    }
    for (String algorithm : SIGNATURES.keySet()) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException | RuntimeException e) {
        // not this algorithm: try the next
      }
    }
    throw new IOException("a PKCS#8 key of no supported algorithm (EC, RSA, Ed25519, Ed448, DSA)");
  }

  /**
   * Whether {@code key} is the private key of {@code cert}: a random message it signs verifies
   * with the certificate's public key (true when the algorithm cannot be checked so).
   */
  static boolean matches(PrivateKey key, X509Certificate cert) {
    String algorithm = SIGNATURES.getOrDefault(key.getAlgorithm(), "");
    if (algorithm.isEmpty()) {
      return true;
    }
    if (!key.getAlgorithm().equals(cert.getPublicKey().getAlgorithm())) {
      return false;
    }
    try {
      byte[] message = new byte[32];
      new SecureRandom().nextBytes(message);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(message);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(cert.getPublicKey());
      verifier.update(message);
      return verifier.verify(signature);
    } catch (GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }
}
