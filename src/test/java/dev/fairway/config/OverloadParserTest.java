package dev.fairway.config;

import static dev.fairway.overload.Criticality.CRITICAL;
import static dev.fairway.overload.Criticality.CRITICAL_PLUS;
import static dev.fairway.overload.Criticality.SHEDDABLE;
import static dev.fairway.overload.Criticality.SHEDDABLE_PLUS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.RetrySettings.RetryOn;
import dev.fairway.control.JsonValues;
import dev.fairway.overload.Criticality;
import io.vertx.core.json.Json;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The overload keys: {@code overload} headers, a service's {@code defaultCriticality},
 * {@code retry}, {@code throttle}, {@code timeouts.totalMs} and per-class
 * {@code slots.waitTimeoutMs}: documented defaults, every key read, every bad value one line with
 * its path.
 */
class OverloadParserTest {
  private static final String S = "services[0].";
  private static final String HEADER = "a header name made of token characters (RFC 9110 §5.6.2), with no underscore, "
      + "not hop-by-hop and not one Fairway sets or reads itself (Host, Via, Forwarded, X-Forwarded-*, "
      + "X-Request-Id, X-Fairway-*, grpc-timeout, traceparent, tracestate, ...)";
  private static final String ON = "connect-failure, reset, refused-stream, 502, 503, 504";
  private static final String CLASSES = "critical-plus, critical, sheddable-plus, sheddable";

  @Test
  void withoutTheKeysEverythingHasItsDefault() throws Exception {
    FairwayConfig c = parse("", "");
    ServiceConfig s = c.services().get(0);
    assertThat(c.overload()).isEqualTo(new OverloadSettings("X-Criticality", "X-Request-Timeout-Ms"));
    assertThat(s.overload()).isEqualTo(new ServiceOverload(CRITICAL, new RetrySettings(
        Set.of(RetryOn.CONNECT_FAILURE, RetryOn.REFUSED_STREAM), Set.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"),
        2, 0, 10, 3), new ThrottleSettings(true, 2, 120_000, 10)));
    assertThat(s.timeouts().totalMs()).isZero();
    assertThat(s.slots()).isEqualTo(new SlotSettings(100, 1000, 10_000, 0, Map.of()));
  }

  @Test
  void everyKeyIsRead() throws Exception {
    FairwayConfig c = parse("""
        "overload": {"criticalityHeader": "X-Priority", "deadlineHeader": "x-deadline-ms"},""", """
        , "defaultCriticality": "SHEDDABLE_PLUS",
        "retry": {"on": ["connect-failure", "Reset", 503, "504"], "methods": ["get", "POST"], "maxAttempts": 3,
                  "perTryTimeoutMs": 500, "budgetPercent": 20.5, "minRetriesPerSecond": 0.5},
        "throttle": {"enabled": false, "k": 1.5, "windowMs": 60000},
        "timeouts": {"totalMs": 5000},
        "slots": {"waitTimeoutMs": {"default": 2000, "critical-plus": 5000, "critical": 2000, "sheddable": 0}}""");
    ServiceConfig s = c.services().get(0);
    assertThat(c.overload()).isEqualTo(new OverloadSettings("X-Priority", "x-deadline-ms"));
    assertThat(s.overload()).isEqualTo(new ServiceOverload(SHEDDABLE_PLUS, new RetrySettings(
        Set.of(RetryOn.CONNECT_FAILURE, RetryOn.RESET, RetryOn.STATUS_503, RetryOn.STATUS_504), Set.of("GET", "POST"),
        3, 500, 20.5, 0.5), new ThrottleSettings(false, 1.5, 60_000, 10)));
    assertThat(s.timeouts()).isEqualTo(new Timeouts(2000, 30_000, 30_000, 1000, 5000));
    // a class whose wait is the default's is not kept apart
    assertThat(s.slots().classWaitTimeoutMs()).isEqualTo(Map.of(CRITICAL_PLUS, 5000L, SHEDDABLE, 0L));
    assertThat(waits(s.slots())).isEqualTo("5000 2000 2000 0");
  }

  @Test
  void partialObjectsKeepTheOtherDefaults() throws Exception {
    ServiceConfig s = parse("", """
        , "defaultCriticality": "critical-plus", "retry": {"maxAttempts": 4}, "throttle": {"k": 3},
        "slots": {"waitTimeoutMs": {"sheddable-plus": 50}}""").services().get(0);
    assertThat(s.overload().defaultCriticality()).isEqualTo(CRITICAL_PLUS);
    assertThat(s.overload().retry()).isEqualTo(new RetrySettings(RetrySettings.DEFAULTS.on(),
        RetrySettings.IDEMPOTENT, 4, 0, 10, 3));
    assertThat(s.overload().throttle()).isEqualTo(new ThrottleSettings(true, 3, 120_000, 10));
    assertThat(waits(s.slots())).isEqualTo("1000 1000 50 1000");
    assertThat(parse("", ", \"slots\": {\"waitTimeoutMs\": 250}").services().get(0).slots())
        .isEqualTo(new SlotSettings(100, 250, 10_000, 0));
    assertThat(parse("", ", \"retry\": {\"on\": [], \"methods\": []}").services().get(0).overload().retry())
        .isEqualTo(new RetrySettings(Set.of(), Set.of(), 2, 0, 10, 3));
  }

  @Test
  void badHeaderNames() {
    assertThat(problems("\"overload\": {\"criticalityHeader\": \"X Priority\", \"deadlineHeader\": \"Connection\"},", ""))
        .containsExactly("overload.criticalityHeader: \"X Priority\" is invalid; expected " + HEADER,
            "overload.deadlineHeader: \"Connection\" is invalid; expected " + HEADER);
    assertThat(problems("\"overload\": {\"criticalityHeader\": \"X_Priority\", \"deadlineHeader\": \"grpc-timeout\"},", ""))
        .containsExactly("overload.criticalityHeader: \"X_Priority\" is invalid; expected " + HEADER,
            "overload.deadlineHeader: \"grpc-timeout\" is invalid; expected " + HEADER);
    assertThat(problems("\"overload\": {\"criticalityHeader\": \"\", \"deadlineHeader\": 5, \"header\": \"x\"},", ""))
        .containsExactly("overload.criticalityHeader: \"\" is invalid; expected " + HEADER,
            "overload.deadlineHeader: 5 is invalid; expected a string",
            "overload.header: unknown key; expected one of criticalityHeader, deadlineHeader");
    assertThat(problems("\"overload\": {\"deadlineHeader\": \"x-criticality\"},", ""))
        .containsExactly("overload.deadlineHeader: \"x-criticality\" is invalid; expected a header other than "
            + "criticalityHeader");
    assertThat(problems("\"overload\": [],", "")).containsExactly("overload: an array is invalid; expected a JSON object");
  }

  @Test
  void badCriticalityAndRetry() {
    assertThat(problems("", """
        , "defaultCriticality": "urgent",
        "retry": {"on": ["timeout", 500, true, "503"], "methods": ["GET", "BAD METHOD", 7], "maxAttempts": 11,
                  "perTryTimeoutMs": -1, "budgetPercent": 101, "minRetriesPerSecond": -1, "attempts": 2}"""))
        .containsExactly(
            S + "defaultCriticality: \"urgent\" is invalid; expected one of " + CLASSES,
            S + "retry.on[0]: \"timeout\" is invalid; expected one of " + ON,
            S + "retry.on[1]: 500 is invalid; expected one of " + ON,
            S + "retry.on[2]: true is invalid; expected one of " + ON,
            S + "retry.methods[1]: \"BAD METHOD\" is invalid; expected a method name like GET (token characters)",
            S + "retry.methods[2]: 7 is invalid; expected a method name like GET (token characters)",
            S + "retry.maxAttempts: 11 is invalid; expected an integer from 1 to 10",
            S + "retry.perTryTimeoutMs: -1 is invalid; expected an integer from 0 to 86400000",
            S + "retry.budgetPercent: 101 is invalid; expected a number from 0.0 to 100.0",
            S + "retry.minRetriesPerSecond: -1 is invalid; expected a number from 0.0 to 100000.0",
            S + "retry.attempts: unknown key; expected one of on, methods, maxAttempts, perTryTimeoutMs, budgetPercent, "
                + "minRetriesPerSecond");
    assertThat(problems("", ", \"defaultCriticality\": 1, \"retry\": {\"on\": \"reset\", \"maxAttempts\": 0}"))
        .containsExactly(S + "defaultCriticality: 1 is invalid; expected a string",
            S + "retry.on: \"reset\" is invalid; expected a JSON array of " + ON,
            S + "retry.maxAttempts: 0 is invalid; expected an integer from 1 to 10");
    assertThat(problems("", ", \"retry\": true")).containsExactly(S + "retry: true is invalid; expected a JSON object");
  }

  @Test
  void badThrottleTotalAndClassWaits() {
    assertThat(problems("", """
        , "throttle": {"enabled": "yes", "k": 1, "windowMs": 999, "K": 2},
        "timeouts": {"totalMs": -1},
        "slots": {"waitTimeoutMs": {"default": "x", "sheddable": -1, "batch": 5}}"""))
        .containsExactly(
            S + "slots.waitTimeoutMs.default: \"x\" is invalid; expected an integer from 0 to 3600000",
            S + "slots.waitTimeoutMs.sheddable: -1 is invalid; expected an integer from 0 to 3600000",
            S + "slots.waitTimeoutMs.batch: unknown key; expected one of default, " + CLASSES,
            S + "timeouts.totalMs: -1 is invalid; expected an integer from 0 to 86400000",
            S + "throttle.enabled: \"yes\" is invalid; expected true or false",
            S + "throttle.k: 1 is invalid; expected a number above 1 and at most 100",
            S + "throttle.windowMs: 999 is invalid; expected an integer from 1000 to 3600000",
            S + "throttle.K: unknown key; expected one of enabled, k, windowMs, minRequests");
    assertThat(problems("", """
        , "throttle": {"k": 100.5, "windowMs": 3600001}, "timeouts": {"totalMs": 86400001},
        "slots": {"waitTimeoutMs": "fast"}"""))
        .containsExactly(
            S + "slots.waitTimeoutMs: \"fast\" is invalid; expected an integer from 0 to 3600000, or an object of waits "
                + "by criticality like {\"default\": 1000, \"sheddable\": 100}",
            S + "timeouts.totalMs: 86400001 is invalid; expected an integer from 0 to 86400000",
            S + "throttle.k: 100.5 is invalid; expected a number above 1 and at most 100",
            S + "throttle.windowMs: 3600001 is invalid; expected an integer from 1000 to 3600000");
    assertThat(problems("", ", \"throttle\": {\"k\": \"2\"}, \"slots\": {\"waitTimeoutMs\": 3600001}"))
        .containsExactly(S + "slots.waitTimeoutMs: 3600001 is invalid; expected an integer from 0 to 3600000, or an "
                + "object of waits by criticality like {\"default\": 1000, \"sheddable\": 100}",
            S + "throttle.k: \"2\" is invalid; expected a number above 1 and at most 100");
  }

  private static String waits(SlotSettings s) {
    StringBuilder b = new StringBuilder();
    for (Criticality c : Criticality.ALL) {
      b.append(b.length() == 0 ? "" : " ").append(s.waitTimeoutMs(c));
    }
    return b.toString();
  }

  private static String config(String top, String service) {
    return "{" + top + "\"services\": [{\"name\": \"api\", \"backends\": [{\"url\": \"http://127.0.0.1:9001\"}]"
        + service + "}]}";
  }

  private static FairwayConfig parse(String top, String service) throws ConfigException {
    return ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(config(top, service))), Map.of());
  }

  private static List<String> problems(String top, String service) {
    try {
      throw new AssertionError("accepted: " + parse(top, service));
    } catch (ConfigException e) {
      return e.problems();
    }
  }
}
