package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import org.junit.jupiter.api.Test;

/** The checks of PEM bytes read while running: each failure names the file and what was expected. */
class PemCheckTest {
  private static byte[] fixture(String name) throws Exception {
    return Files.readAllBytes(Path.of("src/test/resources/tls", name));
  }

  @Test
  void aMatchingPairGivesItsLeaf() throws Exception {
    assertThat(PemCheck.pair("a.pem", fixture("a.pem"), "a.key", fixture("a.key")).getSubjectX500Principal().getName())
        .isEqualTo("CN=a");
  }

  @Test
  void anotherCertificatesKeyIsNamedAsTheProblem() throws Exception {
    assertThatThrownBy(() -> PemCheck.pair("a.pem", fixture("a.pem"), "wild.key", fixture("wild.key")))
        .isInstanceOf(CertificateException.class)
        .hasMessage("wild.key: expected the private key of a.pem (it does not match the certificate's public key)");
  }

  @Test
  void garbageIsNamedWithWhatWasExpected() throws Exception {
    byte[] garbage = "garbage\n".getBytes(StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> PemCheck.certificates("ca.pem", garbage))
        .hasMessage("ca.pem: expected PEM certificates (no -----BEGIN CERTIFICATE----- block in it)");
    assertThatThrownBy(() -> PemCheck.pair("a.pem", fixture("a.pem"), "a.key", garbage))
        .hasMessageStartingWith("a.key: expected exactly one unencrypted PKCS#8 -----BEGIN PRIVATE KEY----- block");
  }
}
