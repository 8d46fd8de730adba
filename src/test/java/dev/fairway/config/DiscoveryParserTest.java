package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.control.JsonValues;
import io.vertx.core.json.Json;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A service's {@code discovery}: defaults, every key, and one line naming the JSON path per bad value. */
class DiscoveryParserTest {
  private static ServiceConfig service(String discovery) throws ConfigException {
    String json = "{\"services\": [{\"name\": \"api\", \"slots\": {\"capacity\": 9}"
        + (discovery == null ? ", \"backends\": [{\"url\": \"http://127.0.0.1:9001\"}]" : ", \"discovery\": " + discovery)
        + "}]}";
    return ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(json)), Map.of()).services().get(0);
  }

  @Test
  void withoutDiscoveryThereIsNone() throws Exception {
    assertThat(service(null).discovery()).isEqualTo(DnsDiscovery.NONE);
  }

  @Test
  void aServiceWithDiscoveryNeedsNoBackendsAndTakesDefaultsFromItsSchemeAndSlots() throws Exception {
    assertThat(service("{\"dns\": \"A\", \"name\": \"api.test\"}").discovery())
        .isEqualTo(new DnsDiscovery("A", "api.test", 30_000, 80, "http", "", 0, 9));
    assertThat(service("{\"dns\": \"A\", \"name\": \"api.test\", \"scheme\": \"https\"}").discovery().port()).isEqualTo(443);
  }

  @Test
  void everyKeyTogether() throws Exception {
    assertThat(service("""
        {"dns": "SRV", "name": "_api._tcp.test.", "scheme": "h2c", "refreshMs": 1000, "server": "127.0.0.1:5353",
         "capacity": 4}""").discovery())
        .isEqualTo(new DnsDiscovery("SRV", "_api._tcp.test.", 1000, 80, "h2c", "127.0.0.1", 5353, 4));
    assertThat(service("{\"dns\": \"A\", \"name\": \"a.test\", \"port\": 8080, \"server\": \"10.0.0.2\"}").discovery())
        .isEqualTo(new DnsDiscovery("A", "a.test", 30_000, 8080, "http", "10.0.0.2", 53, 9));
  }

  @Test
  void badValuesAreNamedByTheirPath() {
    assertThatThrownBy(() -> service("""
        {"dns": "MX", "name": "a b", "scheme": "ftp", "refreshMs": 999, "server": "127.0.0.1:99999", "capacity": 0,
         "ttl": 5}"""))
        .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
            "services[0].discovery.dns: \"MX\" is invalid; expected A or SRV",
            "services[0].discovery.name: \"a b\" is invalid; expected a DNS name like api.internal or _api._tcp.example",
            "services[0].discovery.scheme: \"ftp\" is invalid; expected one of http, h2c, https",
            "services[0].discovery.refreshMs: 999 is invalid; expected an integer from 1000 to 3600000",
            "services[0].discovery.capacity: 0 is invalid; expected an integer from 1 to 1000000",
            "services[0].discovery.server: \"127.0.0.1:99999\" is invalid; expected a DNS server address like 10.0.0.2 "
                + "or 127.0.0.1:5353",
            "services[0].discovery.ttl: unknown key; expected one of dns, name, scheme, port, refreshMs, capacity, server"));
    assertThatThrownBy(() -> service("{\"dns\": \"SRV\", \"port\": 80}"))
        .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
            "services[0].discovery.name: missing; expected a non-empty string",
            "services[0].discovery.port: 80 is invalid; expected no port with SRV (each SRV answer names its own)"));
  }
}
