package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.control.JsonValues;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A service's {@code tls} and {@code https://} backend URLs: valid ones become the expected
 * records, and every mistake (a missing or unreadable file, a key of another certificate, a wrong
 * type, an unknown key) is one line naming its JSON path, all at once.
 */
class UpstreamTlsParserTest {
  private static final String DIR = "src/test/resources/upstream-tls/";

  private static String file(String name) {
    return Path.of(DIR + name).toAbsolutePath().toString();
  }

  private static JsonObject root(String url, JsonObject tls) {
    JsonObject service = new JsonObject().put("name", "api")
        .put("backends", new JsonArray().add(new JsonObject().put("id", "b1").put("url", url)));
    if (tls != null) {
      service.put("tls", tls);
    }
    return new JsonObject().put("services", new JsonArray().add(service));
  }

  private static FairwayConfig parse(JsonObject root) throws ConfigException {
    return ConfigParser.parse(JsonValues.toPlain(root), Map.of());
  }

  private static List<String> problems(JsonObject tls) {
    try {
      throw new AssertionError("accepted: " + parse(root("https://127.0.0.1:9443", tls)));
    } catch (ConfigException e) {
      return e.problems();
    }
  }

  @Test
  void anHttpsBackendWithoutTlsUsesTheDefaultsAndPort443() throws Exception {
    ServiceConfig s = parse(root("HTTPS://api.example", null)).services().get(0);

    assertThat(s.tls()).isEqualTo(UpstreamTls.DEFAULTS);
    assertThat(s.backends()).containsExactly(
        new BackendConfig("b1", "https://api.example:443", "api.example", 443, 100, 1));
    assertThat(s.backends().get(0).tls()).isTrue();
    assertThat(parse(root("http://127.0.0.1:9001", null)).services().get(0).backends().get(0).tls()).isFalse();
  }

  @Test
  void everyKeyIsRead() throws Exception {
    JsonObject tls = new JsonObject().put("caPath", file("ca.pem")).put("verify", false)
        .put("serverName", "api.internal").put("certPath", file("client.pem")).put("keyPath", file("client.key"));

    assertThat(parse(root("https://127.0.0.1:9443", tls)).services().get(0).tls()).isEqualTo(new UpstreamTls(
        Optional.of(file("ca.pem")), false, Optional.of("api.internal"), Optional.of(file("client.pem")),
        Optional.of(file("client.key"))));
  }

  @Test
  void missingAndUnreadableFilesAreNamedWithTheirPaths() {
    assertThat(problems(new JsonObject().put("caPath", "/no/such/ca.pem")
        .put("certPath", file("client.key")).put("keyPath", file("client.pem")))).containsExactly(
        "services[0].tls.caPath: \"/no/such/ca.pem\" is invalid; expected a readable file (no such file)",
        "services[0].tls.certPath: \"" + file("client.key") + "\" is invalid; expected no -----BEGIN CERTIFICATE----- "
            + "block in it",
        "services[0].tls.keyPath: \"" + file("client.pem") + "\" is invalid; expected exactly one unencrypted PKCS#8 "
            + "-----BEGIN PRIVATE KEY----- block");
  }

  @Test
  void aKeyThatDoesNotMatchItsCertificateIsRefused() {
    assertThat(problems(new JsonObject().put("certPath", file("client.pem")).put("keyPath", file("backend.key"))))
        .containsExactly("services[0].tls.keyPath: \"" + file("backend.key") + "\" is invalid; expected the private "
            + "key of the first certificate in certPath " + file("client.pem") + " (this key does not match it)");
  }

  @Test
  void aCertificateWithoutItsKeyAndBadTypesAndUnknownKeys() {
    assertThat(problems(new JsonObject().put("certPath", file("client.pem")).put("verify", "no")
        .put("serverName", "api.internal:443").put("caPath", 7).put("ca", "x"))).containsExactly(
        "services[0].tls.caPath: 7 is invalid; expected a non-empty string naming a PEM file",
        "services[0].tls.verify: \"no\" is invalid; expected true or false",
        "services[0].tls.serverName: \"api.internal:443\" is invalid; expected a host name like api.internal "
            + "(no port, scheme or trailing dot)",
        "services[0].tls.keyPath: missing; expected the PEM private key of certPath's certificate",
        "services[0].tls.ca: unknown key; expected one of caPath, verify, serverName, certPath, keyPath");
  }

  @Test
  void tlsMustBeAnObject() {
    JsonObject root = root("https://127.0.0.1:9443", null);
    root.getJsonArray("services").getJsonObject(0).put("tls", "yes");
    try {
      throw new AssertionError("accepted: " + parse(root));
    } catch (ConfigException e) {
      assertThat(e.problems()).containsExactly("services[0].tls: \"yes\" is invalid; expected a JSON object");
    }
  }
}
