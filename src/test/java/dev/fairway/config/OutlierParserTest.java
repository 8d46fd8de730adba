package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.config.OutlierSettings.SuccessRateSettings;
import dev.fairway.control.JsonValues;
import io.vertx.core.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A service's {@code outlierDetection}: today's values as defaults, every key read, success-rate
 * ejection on only when its object is present, and one line naming the JSON path for each bad value.
 */
class OutlierParserTest {
  private static final String AT = "services[0].outlierDetection.";

  @Test
  void withoutTheBlockTheServiceKeepsTodaysValuesAndNoSuccessRate() throws Exception {
    OutlierSettings o = ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(config(null))), Map.of())
        .services().get(0).outlierDetection();

    assertThat(o).isEqualTo(OutlierSettings.DEFAULTS);
    assertThat(o).isEqualTo(new OutlierSettings(5, 5, 30_000, 300_000, 50, 100, null));
    assertThat(outliers("{}")).isEqualTo(OutlierSettings.DEFAULTS);
  }

  @Test
  void everyKeyTogether() throws Exception {
    assertThat(outliers("""
        {"consecutive5xx": 3, "consecutiveGatewayFailures": 2, "baseEjectionMs": 10000, "maxEjectionMs": 60000,
         "maxEjectionPercent": 100, "failurePenaltyMs": 0,
         "successRate": {"intervalMs": 5000, "minimumHosts": 3, "requestVolume": 20, "stdevFactor": 1}}
        """)).isEqualTo(new OutlierSettings(3, 2, 10_000, 60_000, 100, 0, new SuccessRateSettings(5000, 3, 20, 1.0)));
  }

  @Test
  void anEmptySuccessRateObjectTurnsItOnWithEnvoysDefaults() throws Exception {
    assertThat(outliers("{\"successRate\": {}}").successRate()).isEqualTo(new SuccessRateSettings(10_000, 5, 100, 1.9))
        .isEqualTo(SuccessRateSettings.DEFAULTS);
    assertThat(outliers("{\"successRate\": {\"stdevFactor\": 2.5}}").successRate())
        .isEqualTo(new SuccessRateSettings(10_000, 5, 100, 2.5));
    assertThat(outliers("{\"successRate\": null}").successRate()).as("null: absent").isNull();
  }

  @Test
  void aBaseAboveTheDefaultMaximumRaisesTheMaximumWhenItIsNotGiven() throws Exception {
    assertThat(outliers("{\"baseEjectionMs\": 400000}")).extracting(OutlierSettings::baseEjectionMs,
        OutlierSettings::maxEjectionMs).containsExactly(400_000L, 400_000L);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', textBlock = """
      consecutive5xx             | 0       | an integer from 1 to 1000000
      consecutive5xx             | 2.5     | an integer from 1 to 1000000
      consecutive5xx             | '"5"'   | an integer from 1 to 1000000
      consecutiveGatewayFailures | -1      | an integer from 1 to 1000000
      baseEjectionMs             | 0       | an integer from 1 to 86400000
      maxEjectionMs              | 0       | an integer from 1 to 86400000
      maxEjectionMs              | 10      | an integer from 30000 (baseEjectionMs) to 86400000
      maxEjectionMs              | 86400001 | an integer from 1 to 86400000
      maxEjectionPercent         | 101     | an integer from 0 to 100
      maxEjectionPercent         | true    | an integer from 0 to 100
      failurePenaltyMs           | -1      | an integer from 0 to 60000
      failurePenaltyMs           | 60001   | an integer from 0 to 60000
      successRate                | true    | a JSON object
      successRate                | '[]'    | a JSON object
      """)
  void badValuesNameThePath(String key, String json, String expected) {
    String shown = json.equals("[]") ? "an array" : json;
    assertThat(problems("{\"" + key + "\": " + json + "}"))
        .containsExactly(AT + key + ": " + shown + " is invalid; expected " + expected);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', textBlock = """
      intervalMs    | 249        | an integer from 250 to 3600000
      intervalMs    | 3600001    | an integer from 250 to 3600000
      minimumHosts  | 0          | an integer from 1 to 100000
      requestVolume | 0          | an integer from 1 to 1000000000
      stdevFactor   | -0.1       | a number from 0.0 to 100.0
      stdevFactor   | '"1.9"'    | a number from 0.0 to 100.0
      """)
  void badSuccessRateValuesNameThePath(String key, String json, String expected) {
    assertThat(problems("{\"successRate\": {\"" + key + "\": " + json + "}}"))
        .containsExactly(AT + "successRate." + key + ": " + json + " is invalid; expected " + expected);
  }

  @Test
  void maxBelowAGivenBaseNamesTheBase() {
    assertThat(problems("{\"baseEjectionMs\": 60000, \"maxEjectionMs\": 59999}"))
        .containsExactly(AT + "maxEjectionMs: 59999 is invalid; expected an integer from 60000 (baseEjectionMs) to 86400000");
  }

  @Test
  void everyProblemIsReportedAtOnceAndUnknownKeysListTheKnownOnes() {
    assertThat(problems("""
        {"consecutive5xx": 0, "maxEjectionPercent": 200, "consecutive5XX": 3,
         "successRate": {"minimumHosts": 0, "interval": 1000}}
        """)).containsExactly(
        AT + "consecutive5xx: 0 is invalid; expected an integer from 1 to 1000000",
        AT + "maxEjectionPercent: 200 is invalid; expected an integer from 0 to 100",
        AT + "successRate.minimumHosts: 0 is invalid; expected an integer from 1 to 100000",
        AT + "successRate.interval: unknown key; expected one of intervalMs, minimumHosts, requestVolume, stdevFactor",
        AT + "consecutive5XX: unknown key; expected one of consecutive5xx, consecutiveGatewayFailures, "
            + "baseEjectionMs, maxEjectionMs, maxEjectionPercent, failurePenaltyMs, successRate");
  }

  @Test
  void theBlockMustBeAnObject() {
    assertThat(problemsOf(config("5"))).containsExactly("services[0].outlierDetection: 5 is invalid; expected a JSON object");
  }

  @Test
  void theRecordsRejectWhatTheParserNeverBuilds() {
    assertThatThrownBy(() -> new SuccessRateSettings(249, 5, 100, 1.9)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SuccessRateSettings(10_000, 0, 100, 1.9)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SuccessRateSettings(10_000, 5, 0, 1.9)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SuccessRateSettings(10_000, 5, 100, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SuccessRateSettings(10_000, 5, 100, -1)).isInstanceOf(IllegalArgumentException.class);
  }

  private static String config(String outlierDetection) {
    return "{\"services\": [{\"name\": \"api\"" + (outlierDetection == null ? "" : ", \"outlierDetection\": "
        + outlierDetection) + ", \"backends\": [{\"url\": \"http://127.0.0.1:9001\"}]}]}";
  }

  private static OutlierSettings outliers(String json) throws ConfigException {
    return ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(config(json))), Map.of())
        .services().get(0).outlierDetection();
  }

  private static List<String> problems(String json) {
    return problemsOf(config(json));
  }

  private static List<String> problemsOf(String text) {
    try {
      FairwayConfig accepted = ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(text)), Map.of());
      throw new AssertionError("expected problems, but the config was accepted: " + accepted);
    } catch (ConfigException e) {
      return e.problems();
    }
  }
}
