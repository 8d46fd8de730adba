package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.HealthExpectation.StatusRange;
import dev.fairway.control.JsonValues;
import io.vertx.core.json.Json;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code healthCheck} keys {@code expectStatus}, {@code expectBody} and {@code host}: their
 * defaults, the accepted forms, and one line naming the JSON path for each bad value.
 */
class HealthCheckConfigTest {
  private static final String STATUS = "a status like \"204\" or a range like \"200-399\" (100 to 599, low end first)";
  private static final String STATUSES = STATUS + ", or a non-empty JSON array of them";
  private static final String HOST = "a host name or IPv4 address with an optional port, like api.example or "
      + "api.example:8080, or a bracketed IPv6 address like [::1]:8080";

  @Test
  void withoutTheNewKeysAnyTwoHundredPassesWithTheBackendsOwnHost() throws Exception {
    HealthCheckSettings h = healthCheck("{\"path\": \"/ready\"}");

    assertThat(h.expect()).isEqualTo(HealthExpectation.DEFAULT);
    assertThat(h.expect().statusText()).isEqualTo("200-299");
    assertThat(h.expect().bodyContains()).isNull();
    assertThat(h.host()).isEmpty();
    assertThat(h).isEqualTo(new HealthCheckSettings("/ready", 2000, 1000, 2, 3));
  }

  @Test
  void allKeysTogether() throws Exception {
    HealthCheckSettings h = healthCheck("""
        {"path": "/health", "intervalMs": 500, "timeoutMs": 200, "healthyThreshold": 1, "unhealthyThreshold": 2,
         "expectStatus": "200-399", "expectBody": "\\"status\\":\\"UP\\"", "host": "api.example:8080"}
        """);

    assertThat(h).isEqualTo(new HealthCheckSettings("/health", 500, 200, 1, 2,
        new HealthExpectation(List.of(new StatusRange(200, 399)), "\"status\":\"UP\""), Optional.of("api.example:8080")));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "'\"204\"'                    | 204",
      "204                         | 204",
      "'\"200-399\"'                | 200-399",
      "'[\"200-299\", \"404\"]'      | 200-299, 404",
      "'[204, \"300-308\", 500]'     | 204, 300-308, 500",
  })
  void expectStatusIsOneStatusOrRangeOrAnArrayOfThem(String json, String text) throws Exception {
    assertThat(healthCheck("{\"expectStatus\": " + json + "}").expect().statusText()).isEqualTo(text);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "api.example",
      "API.example:8080",
      "10.0.0.7",
      "10.0.0.7:65535",
      "localhost",
      "[::1]",
      "'[::1]:8080'",
      "'[2001:db8::7]:80'",
  })
  void hostAcceptsNamesAddressesAndPorts(String host) throws Exception {
    assertThat(healthCheck("{\"host\": \"" + host + "\"}").host()).contains(host);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "'\"2xx\"'              | \"2xx\"",
      "'\"299-200\"'          | \"299-200\"",
      "'\"200-600\"'          | \"200-600\"",
      "'\"200,204\"'          | \"200,204\"",
      "'\"\"'                 | \"\"",
      "99                    | 99",
      "200.5                 | 200.5",
      "true                  | true",
      "'{}'                  | an object",
      "'[]'                  | an array",
  })
  void badExpectStatusNamesThePathAndTheForms(String json, String shown) {
    assertThat(problems("{\"expectStatus\": " + json + "}"))
        .containsExactly("services[0].healthCheck.expectStatus: " + shown + " is invalid; expected " + STATUSES);
  }

  @Test
  void badElementsOfAnExpectStatusArrayAreNamedByIndex() {
    assertThat(problems("{\"expectStatus\": [\"200-299\", \"3xx\", 404, null]}")).containsExactly(
        "services[0].healthCheck.expectStatus[1]: \"3xx\" is invalid; expected " + STATUS,
        "services[0].healthCheck.expectStatus[3]: null is invalid; expected " + STATUS);
  }

  @Test
  void badExpectBody() {
    String long1025 = "x".repeat(1025);
    assertThat(problems("{\"expectBody\": \"\"}")).containsExactly(
        "services[0].healthCheck.expectBody: \"\" is invalid; expected a non-empty string of at most 1024 characters");
    assertThat(problems("{\"expectBody\": \"" + long1025 + "\"}")).containsExactly("services[0].healthCheck"
        + ".expectBody: \"" + long1025 + "\" is invalid; expected a non-empty string of at most 1024 characters");
    assertThat(problems("{\"expectBody\": 200}")).containsExactly(
        "services[0].healthCheck.expectBody: 200 is invalid; expected a string");
  }

  @ParameterizedTest(name = "\"{0}\"")
  @CsvSource(delimiter = '|', value = {
      "''",
      "http://api.example",
      "api.example/health",
      "api.example:0",
      "api.example:70000",
      "api.example:",
      "api.example:80:81",
      "*.example",
      "'api example'",
      "a@api.example",
      "'[::1'",
      "'[::1]8080'",
      "'[zz::1]'",
      "::1",
  })
  void badHostNamesThePath(String host) {
    assertThat(problems("{\"host\": \"" + host + "\"}"))
        .containsExactly("services[0].healthCheck.host: \"" + host + "\" is invalid; expected " + HOST);
  }

  @Test
  void everyProblemIsReportedAtOnceAndUnknownKeysListTheNewOnes() {
    assertThat(problems("{\"expectStatus\": \"ok\", \"expectBody\": \"\", \"host\": \"a b\", \"expect\": 200}"))
        .containsExactly(
            "services[0].healthCheck.expectStatus: \"ok\" is invalid; expected " + STATUSES,
            "services[0].healthCheck.expectBody: \"\" is invalid; expected a non-empty string of at most 1024 "
                + "characters",
            "services[0].healthCheck.host: \"a b\" is invalid; expected " + HOST,
            "services[0].healthCheck.expect: unknown key; expected one of path, intervalMs, timeoutMs, "
                + "healthyThreshold, unhealthyThreshold, expectStatus, expectBody, host, type, grpcService");
  }

  @Test
  void grpcTypeAsksAboutTheWholeServerUnlessAServiceIsNamed() throws Exception {
    assertThat(healthCheck("{}").grpc()).isFalse();
    assertThat(healthCheck("{\"type\": \"http\"}")).isEqualTo(new HealthCheckSettings("/health", 2000, 1000, 2, 3));
    HealthCheckSettings whole = healthCheck("{\"type\": \"grpc\", \"host\": \"api.example\", \"intervalMs\": 500}");
    assertThat(whole).isEqualTo(new HealthCheckSettings("/health", 500, 1000, 2, 3, HealthExpectation.DEFAULT,
        Optional.of("api.example"), Optional.of("")));
    assertThat(whole.grpc()).isTrue();
    assertThat(healthCheck("{\"type\": \"grpc\", \"grpcService\": \"shop.Cart\"}").grpcService()).contains("shop.Cart");
  }

  @Test
  void badTypeAndKeysOfTheOtherKindOfCheckNameTheirPaths() {
    assertThat(problems("{\"type\": \"GRPC\"}")).containsExactly(
        "services[0].healthCheck.type: \"GRPC\" is invalid; expected \"http\" or \"grpc\"");
    assertThat(problems("{\"type\": 1}")).containsExactly(
        "services[0].healthCheck.type: 1 is invalid; expected a string");
    assertThat(problems("{\"grpcService\": \"shop.Cart\"}")).containsExactly(
        "services[0].healthCheck.grpcService: applies to gRPC checks only; expected it with \"type\": \"grpc\"");
    assertThat(problems("{\"type\": \"grpc\", \"path\": \"/health\", \"expectStatus\": 200, \"expectBody\": \"ok\", "
        + "\"grpcService\": 7}")).containsExactly(
        "services[0].healthCheck.grpcService: 7 is invalid; expected a string",
        "services[0].healthCheck.path: applies to HTTP checks only; a gRPC check passes on SERVING",
        "services[0].healthCheck.expectStatus: applies to HTTP checks only; a gRPC check passes on SERVING",
        "services[0].healthCheck.expectBody: applies to HTTP checks only; a gRPC check passes on SERVING");
  }

  private static String config(String healthCheck) {
    return "{\"services\": [{\"name\": \"api\", \"healthCheck\": " + healthCheck
        + ", \"backends\": [{\"url\": \"http://127.0.0.1:9001\"}]}]}";
  }

  private static HealthCheckSettings healthCheck(String json) throws ConfigException {
    return ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(config(json))), Map.of())
        .services().get(0).healthCheck();
  }

  private static List<String> problems(String json) {
    try {
      FairwayConfig accepted = ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(config(json))), Map.of());
      throw new AssertionError("expected problems, but the config was accepted: " + accepted);
    } catch (ConfigException e) {
      return e.problems();
    }
  }
}
