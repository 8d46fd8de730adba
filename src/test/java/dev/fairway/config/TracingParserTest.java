package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.control.JsonValues;
import io.vertx.core.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code tracing} object: off by default, every key read, every bad value one line with its path. */
class TracingParserTest {
  private static final String URL = "an http:// or https:// URL like http://127.0.0.1:4318/v1/traces";

  @Test
  void absentIsOff() throws Exception {
    assertThat(parse("").tracing()).isEqualTo(TracingSettings.OFF);
    assertThat(TracingSettings.OFF.on()).isFalse();
    assertThat(parse("\"tracing\": {},").tracing()).isEqualTo(new TracingSettings(null, "fairway", 1.0, 10_000, 2048, 512, 1000));
  }

  @Test
  void everyKeyIsRead() throws Exception {
    TracingSettings t = parse("""
        "tracing": {"endpoint": "https://collector:4318/v1/traces", "serviceName": "edge", "sampleRatio": 0.25,
                    "exportTimeoutMs": 2000, "maxQueueSize": 100, "maxBatchSize": 10, "scheduleDelayMs": 50},""").tracing();
    assertThat(t).isEqualTo(new TracingSettings("https://collector:4318/v1/traces", "edge", 0.25, 2000, 100, 10, 50));
    assertThat(t.on()).isTrue();
  }

  @Test
  void badValuesNameTheirPath() {
    assertThat(problems("""
        "tracing": {"endpoint": "collector:4318", "serviceName": " ", "sampleRatio": 1.5, "exportTimeoutMs": 0,
                    "maxQueueSize": 10, "maxBatchSize": 20, "sample": 1},"""))
        .containsExactly("tracing.endpoint: \"collector:4318\" is invalid; expected " + URL,
            "tracing.serviceName: \" \" is invalid; expected a non-empty string",
            "tracing.maxBatchSize: 20 is invalid; expected at most maxQueueSize = 10",
            "tracing.sampleRatio: 1.5 is invalid; expected a number from 0.0 to 1.0",
            "tracing.exportTimeoutMs: 0 is invalid; expected an integer from 1 to 3600000",
            "tracing.sample: unknown key; expected one of endpoint, serviceName, maxQueueSize, maxBatchSize, "
                + "sampleRatio, exportTimeoutMs, scheduleDelayMs");
    assertThat(problems("\"tracing\": {\"endpoint\": \"ftp://x/v1/traces\"},"))
        .containsExactly("tracing.endpoint: \"ftp://x/v1/traces\" is invalid; expected " + URL);
    assertThat(problems("\"tracing\": \"on\",")).containsExactly("tracing: \"on\" is invalid; expected a JSON object");
  }

  @Test
  void traceContextFieldsAreReservedFromHeaderSettings() {
    assertThat(problems("\"overload\": {\"criticalityHeader\": \"TraceParent\", \"deadlineHeader\": \"tracestate\"},"))
        .hasSize(2).allMatch(p -> p.contains("is invalid; expected a header name"));
  }

  private static FairwayConfig parse(String top) throws ConfigException {
    String json = "{" + top + "\"services\": [{\"name\": \"api\", \"backends\": [{\"url\": \"http://127.0.0.1:9001\"}]}]}";
    return ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(json)), Map.of());
  }

  private static List<String> problems(String top) {
    try {
      throw new AssertionError("accepted: " + parse(top));
    } catch (ConfigException e) {
      return e.problems();
    }
  }
}
