package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.control.JsonValues;
import io.vertx.core.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A service's {@code split}: targets as given, and every way a split can be wrong (unknown,
 * itself, a chain, a weight out of range, beside backends) one line with its path.
 */
class SplitParserTest {
  private static final String V1 = "{\"name\": \"v1\", \"backends\": [{\"url\": \"http://127.0.0.1:9001\"}]}";
  private static final String V2 = "{\"name\": \"v2\", \"backends\": [{\"url\": \"http://127.0.0.1:9002\"}]}";

  @Test
  void aSplitServiceTakesItsTargetsAsGiven() throws Exception {
    FairwayConfig c = parse("{\"name\": \"canary\", \"split\": [{\"service\": \"v1\", \"weight\": 95}, "
        + "{\"service\": \"v2\", \"weight\": 5}]}", V1, V2);
    assertThat(c.services().get(0).split()).containsExactly(new SplitTarget("v1", 95), new SplitTarget("v2", 5));
    assertThat(c.services().get(1).split()).isEmpty();
  }

  @Test
  void targetsMustBeOtherServicesWithoutSplits() {
    assertThat(problems("{\"name\": \"a\", \"split\": [{\"service\": \"v1\", \"weight\": 1}, "
        + "{\"service\": \"a\", \"weight\": 1}, {\"service\": \"v3\", \"weight\": 1}, {\"service\": \"b\", \"weight\": 1}]}",
        "{\"name\": \"b\", \"split\": [{\"service\": \"a\", \"weight\": 1}]}", V1)).containsExactly(
        "services[0].split[1].service: \"a\" is invalid; expected another service (a split cannot name itself)",
        "services[0].split[2].service: \"v3\" is invalid; expected the name of a service with backends: v1",
        "services[0].split[3].service: \"b\" is invalid; expected a service without a split of its own (splits do not chain)",
        "services[1].split[0].service: \"a\" is invalid; expected a service without a split of its own (splits do not chain)");
  }

  @Test
  void weightsAreIntegersFromOneToTenThousandAndEachTargetComesOnce() {
    assertThat(problems("{\"name\": \"a\", \"split\": [{\"service\": \"v1\", \"weight\": 0}, "
        + "{\"service\": \"v2\", \"weight\": 10001}, {\"service\": \"v1\", \"weight\": 2.5}, {\"service\": \"v2\"}, "
        + "{\"weight\": 3, \"share\": 1}]}", V1, V2)).containsExactly(
        "services[0].split[0].weight: 0 is invalid; expected an integer from 1 to 10000",
        "services[0].split[1].weight: 10001 is invalid; expected an integer from 1 to 10000",
        "services[0].split[2].weight: 2.5 is invalid; expected an integer from 1 to 10000",
        "services[0].split[2].service: \"v1\" is invalid; expected each service once in a split",
        "services[0].split[3].weight: missing; expected an integer from 1 to 10000",
        "services[0].split[3].service: \"v2\" is invalid; expected each service once in a split",
        "services[0].split[4].service: missing; expected a non-empty string",
        "services[0].split[4].share: unknown key; expected one of service, weight");
  }

  @Test
  void aSplitNeedsATargetAndNoBackendsOrHeaderRulesOfItsOwn() {
    assertThat(problems("{\"name\": \"a\", \"split\": []}", V1)).containsExactly(
        "services[0].split: empty; expected at least one {\"service\", \"weight\"}");
    String own = "; expected a split service without backends, discovery or header rules (each request is served "
        + "by a target service, with its settings)";
    assertThat(problems("{\"name\": \"a\", \"split\": [{\"service\": \"v1\", \"weight\": 1}], "
        + "\"backends\": [{\"url\": \"http://127.0.0.1:9003\"}]}",
        "{\"name\": \"b\", \"split\": [{\"service\": \"v1\", \"weight\": 1}], "
        + "\"responseHeaders\": {\"set\": {\"X-A\": \"1\"}}}", V1)).containsExactly(
        "services[0].split: is given with backends" + own,
        "services[1].split: is given with requestHeaders or responseHeaders" + own);
  }

  private static String config(String... services) {
    return "{\"services\": [" + String.join(", ", services) + "]}";
  }

  private static FairwayConfig parse(String... services) throws ConfigException {
    return ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(config(services))), Map.of());
  }

  private static List<String> problems(String... services) {
    try {
      throw new AssertionError("accepted: " + parse(services));
    } catch (ConfigException e) {
      return e.problems();
    }
  }
}
