package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.control.JsonValues;
import dev.fairway.testing.TlsFiles;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code proxy.tls}: the defaults, and each bad value or unusable file as one problem line with
 * its JSON path, all at once.
 */
class TlsParserTest {

  @Test
  void defaultsAndTheFirstCertificateFirst() throws Exception {
    FairwayConfig c = parse(new JsonObject().put("certificates", new JsonArray()
        .add(TlsFiles.certificate("a")).add(TlsFiles.certificate("b"))));

    TlsSettings t = c.proxy().tls().orElseThrow();
    assertThat(t.port()).isEqualTo(8443);
    assertThat(t.protocols()).containsExactly("TLSv1.3", "TLSv1.2");
    assertThat(t.alpn()).containsExactly("h2", "http/1.1");
    assertThat(t.clientCa()).isEmpty();
    assertThat(t.certificates()).extracting(TlsSettings.Certificate::certPath)
        .containsExactly(TlsFiles.path("a.pem"), TlsFiles.path("b.pem"));
    assertThat(t.certificates().get(1).path()).isEqualTo("proxy.tls.certificates[1]");
    assertThat(c.proxy().cleartext()).isTrue();
  }

  @Test
  void everyKeySet() throws Exception {
    FairwayConfig c = parse(TlsFiles.tls("wild").put("port", 9443).put("protocols", new JsonArray().add("TLSv1.3"))
        .put("alpn", new JsonArray().add("http/1.1")).put("clientCa", TlsFiles.path("client-ca.pem")), -1);

    TlsSettings t = c.proxy().tls().orElseThrow();
    assertThat(t.port()).isEqualTo(9443);
    assertThat(t.protocols()).containsExactly("TLSv1.3");
    assertThat(t.alpn()).containsExactly("http/1.1");
    assertThat(t.clientCa()).contains(TlsFiles.path("client-ca.pem"));
    assertThat(c.proxy().cleartext()).isFalse();
  }

  @Test
  void noTlsKeyMeansNoTls() throws Exception {
    FairwayConfig c = ConfigParser.parse(JsonValues.toPlain(base()), Map.of());

    assertThat(c.proxy().tls()).isEmpty();
  }

  @Test
  void cleartextOffNeedsTls() {
    JsonObject root = base();
    root.getJsonObject("proxy").put("port", -1);

    assertThat(problems(root)).containsExactly("proxy.port: -1 is invalid; expected a port from 0 to 65535; -1 "
        + "(no cleartext listener) only with proxy.tls, else nothing listens");
  }

  @Test
  void missingFile() {
    JsonObject tls = TlsFiles.tls("a");
    tls.getJsonArray("certificates").getJsonObject(0).put("certPath", "/nonexistent/a.pem");

    assertThat(problems(tls)).containsExactly(
        "proxy.tls.certificates[0].certPath: \"/nonexistent/a.pem\" is invalid; expected a readable file (no such file)");
  }

  @Test
  void keyOfAnotherCertificate() {
    JsonObject tls = TlsFiles.tls("a", "b");
    tls.getJsonArray("certificates").getJsonObject(1).put("keyPath", TlsFiles.path("a.key"));
    tls.getJsonArray("certificates").getJsonObject(0).put("keyPath", TlsFiles.path("wild.key"));

    assertThat(problems(tls)).containsExactly(
        "proxy.tls.certificates[0].keyPath: \"" + TlsFiles.path("wild.key") + "\" is invalid; expected the private "
            + "key of proxy.tls.certificates[0].certPath \"" + TlsFiles.path("a.pem")
            + "\" (the key does not match the certificate's public key)",
        "proxy.tls.certificates[1].keyPath: \"" + TlsFiles.path("a.key") + "\" is invalid; expected the private "
            + "key of proxy.tls.certificates[1].certPath \"" + TlsFiles.path("b.pem")
            + "\" (the key does not match the certificate's public key)");
  }

  @Test
  void aKeyFileAsCertificateAndACertificateAsKey() {
    JsonObject tls = new JsonObject().put("certificates", new JsonArray().add(new JsonObject()
        .put("certPath", TlsFiles.path("a.key")).put("keyPath", TlsFiles.path("a.pem"))));

    assertThat(problems(tls)).containsExactly(
        "proxy.tls.certificates[0].certPath: \"" + TlsFiles.path("a.key") + "\" is invalid; expected no -----BEGIN "
            + "CERTIFICATE----- block in it",
        "proxy.tls.certificates[0].keyPath: \"" + TlsFiles.path("a.pem") + "\" is invalid; expected exactly one "
            + "unencrypted PKCS#8 -----BEGIN PRIVATE KEY----- block");
  }

  @Test
  void oldProtocolsAreRefused() {
    JsonObject tls = TlsFiles.tls("a").put("protocols", new JsonArray().add("TLSv1.2").add("TLSv1.1").add("SSLv3")
        .add("TLSv9"));

    assertThat(problems(tls)).containsExactly(
        "proxy.tls.protocols[1]: \"TLSv1.1\" is invalid; expected TLSv1.3 or TLSv1.2 (TLSv1.1 is older than "
            + "TLSv1.2 and insecure)",
        "proxy.tls.protocols[2]: \"SSLv3\" is invalid; expected TLSv1.3 or TLSv1.2 (SSLv3 is older than TLSv1.2 "
            + "and insecure)",
        "proxy.tls.protocols[3]: \"TLSv9\" is invalid; expected TLSv1.3 or TLSv1.2");
  }

  @Test
  void emptyCertificatesAndProtocolsAndBadAlpn() {
    JsonObject tls = new JsonObject().put("certificates", new JsonArray()).put("protocols", new JsonArray())
        .put("alpn", new JsonArray().add("spdy/3")).put("port", 70000).put("ciphers", "ALL");

    assertThat(problems(tls)).containsExactly(
        "proxy.tls.port: 70000 is invalid; expected an integer from 0 to 65535",
        "proxy.tls.certificates: empty; expected at least one {\"certPath\", \"keyPath\"}",
        "proxy.tls.protocols: empty; expected at least one of TLSv1.3, TLSv1.2",
        "proxy.tls.alpn[0]: \"spdy/3\" is invalid; expected h2 or http/1.1",
        "proxy.tls.ciphers: unknown key; expected one of port, certificates, protocols, alpn, clientCa");
  }

  @Test
  void missingCertificatesAndPathsAndClientCa() {
    JsonObject tls = new JsonObject().put("clientCa", "/nonexistent/ca.pem");
    JsonObject noPaths = new JsonObject().put("certificates", new JsonArray().add(new JsonObject()));

    assertThat(problems(tls)).containsExactly(
        "proxy.tls.certificates: missing; expected a non-empty array of {\"certPath\", \"keyPath\"}",
        "proxy.tls.clientCa: \"/nonexistent/ca.pem\" is invalid; expected a readable file (no such file)");
    assertThat(problems(noPaths)).containsExactly(
        "proxy.tls.certificates[0].certPath: missing; expected a non-empty string",
        "proxy.tls.certificates[0].keyPath: missing; expected a non-empty string");
  }

  @Test
  void tlsPortMustNotClash() {
    JsonObject root = base();
    root.getJsonObject("proxy").put("port", 8443).put("tls", TlsFiles.tls("a").put("port", 8443));

    assertThat(problems(root)).containsExactly(
        "proxy.tls.port: 8443 is invalid; expected a port not already used by proxy.port");
  }

  private static JsonObject base() {
    return new JsonObject()
        .put("proxy", new JsonObject().put("port", 8080))
        .put("services", new JsonArray().add(new JsonObject().put("name", "api")
            .put("backends", new JsonArray().add(new JsonObject().put("url", "http://127.0.0.1:9001")))));
  }

  private static FairwayConfig parse(JsonObject tls) throws ConfigException {
    return parse(tls, 8080);
  }

  private static FairwayConfig parse(JsonObject tls, int port) throws ConfigException {
    JsonObject root = base();
    root.getJsonObject("proxy").put("port", port).put("tls", tls);
    return ConfigParser.parse(JsonValues.toPlain(root), Map.of());
  }

  /** The problems of {@code tlsOrRoot}: a whole config (with "services"), or a {@code proxy.tls} object. */
  private static List<String> problems(JsonObject tlsOrRoot) {
    JsonObject root = tlsOrRoot.containsKey("services") ? tlsOrRoot : base();
    if (root != tlsOrRoot) {
      root.getJsonObject("proxy").put("tls", tlsOrRoot);
    }
    try {
      FairwayConfig accepted = ConfigParser.parse(JsonValues.toPlain(root), Map.of());
      throw new AssertionError("expected problems, but the config was accepted: " + Optional.of(accepted));
    } catch (ConfigException e) {
      return e.problems();
    }
  }
}
