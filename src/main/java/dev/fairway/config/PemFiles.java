package dev.fairway.config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PEM certificates and keys with the JDK alone, so that the config parser can tell a
 * missing file, a file that is not PEM, or a key that does not belong to its certificate, each
 * as one problem line.
 *
 * <p>Example: {@code certificates(Path.of("site.pem"))} returns the chain, leaf first;
 * {@code privateKey(Path.of("site.key"))} reads a {@code -----BEGIN PRIVATE KEY-----} block (RSA,
 * EC or Ed25519); {@code matches(key, chain.get(0))} signs a few bytes with the key and checks
 * the signature with the certificate's public key.
 */
final class PemFiles {
  private static final Pattern BLOCK = Pattern.compile(
      "-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");
  private static final String[] KEY_ALGORITHMS = {"RSA", "EC", "Ed25519"};
  private static final byte[] CHALLENGE = "fairway key check".getBytes(StandardCharsets.US_ASCII);

  private PemFiles() {
  }

  /** A file that cannot be used, with the reason as a problem line's tail ("... is invalid; expected ..."). */
  static final class Unusable extends Exception {
    Unusable(String message) {
      super(message, null, false, false);
    }
  }

  /** The certificates of a PEM file, in file order; at least one. */
  static List<X509Certificate> certificates(Path file) throws Unusable {
    return certificates(read(file));
  }

  /** The certificates of PEM text, in order; at least one. */
  static List<X509Certificate> certificates(String text) throws Unusable {
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory cf = CertificateFactory.getInstance("X.509");
      for (byte[] der : blocks(text, "CERTIFICATE")) {
        out.add((X509Certificate) cf.generateCertificate(new ByteArrayInputStream(der)));
      }
    } catch (CertificateException | IllegalArgumentException e) {
      throw new Unusable("a PEM certificate that does not parse (" + e.getMessage() + ")");
    }
    if (out.isEmpty()) {
      throw new Unusable("no -----BEGIN CERTIFICATE----- block in it");
    }
    return out;
  }

  /** The one private key of a PEM file: an unencrypted PKCS#8 block. */
  static PrivateKey privateKey(Path file) throws Unusable {
    return privateKey(read(file));
  }

  /** The one private key of PEM text: an unencrypted PKCS#8 block. */
  static PrivateKey privateKey(String text) throws Unusable {
    List<byte[]> keys = blocks(text, "PRIVATE KEY");
    if (keys.size() != 1) {
      String other = text.contains("-----BEGIN RSA PRIVATE KEY-----") || text.contains("-----BEGIN EC PRIVATE KEY-----")
          || text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") ? " (convert it with openssl pkcs8 -topk8 -nocrypt)" : "";
      throw new Unusable("exactly one unencrypted PKCS#8 -----BEGIN PRIVATE KEY----- block" + other);
    }
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(keys.get(0));
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        // not this algorithm: try the next
      }
    }
    throw new Unusable("an RSA, EC or Ed25519 private key");
  }

  /** Whether {@code key} is the private half of {@code cert}'s public key. */
  static boolean matches(PrivateKey key, X509Certificate cert) {
    PublicKey pub = cert.getPublicKey();
    if (!pub.getAlgorithm().equals(key.getAlgorithm()) && !(isEdDsa(pub) && isEdDsa(key))) {
      return false;
    }
    String algorithm = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      default -> key.getAlgorithm();
    };
    try {
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(CHALLENGE);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(pub);
      verifier.update(CHALLENGE);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static boolean isEdDsa(java.security.Key k) {
    return k.getAlgorithm().equals("EdDSA") || k.getAlgorithm().equals("Ed25519");
  }

  private static String read(Path file) throws Unusable {
    if (!Files.isRegularFile(file)) {
      throw new Unusable("a readable file (" + (Files.exists(file) ? "not a regular file" : "no such file") + ")");
    }
    try {
      return Files.readString(file, StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new Unusable("a readable file (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
    }
  }

  private static List<byte[]> blocks(String text, String label) {
    List<byte[]> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      if (m.group(1).equals(label)) {
        out.add(Base64.getMimeDecoder().decode(m.group(2)));
      }
    }
    return out;
  }
}
