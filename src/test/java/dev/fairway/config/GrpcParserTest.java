package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.control.JsonValues;
import dev.fairway.grpc.GrpcErrorCodes;
import io.vertx.core.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A service's {@code grpc.errorCodes}: every non-zero code by default, a list narrows it, bad entries name their path. */
class GrpcParserTest {
  private static final String AT = "services[0].grpc.";

  @Test
  void withoutTheBlockEveryNonZeroCodeIsAnError() throws Exception {
    assertThat(errorCodes(null)).isEqualTo(GrpcErrorCodes.ALL_ERRORS);
    assertThat(errorCodes("{}")).isEqualTo(GrpcErrorCodes.ALL_ERRORS);
  }

  @Test
  void aListNarrowsItAndAnEmptyOneCountsNone() throws Exception {
    assertThat(errorCodes("{\"errorCodes\": [14, 2, 4, 8, 13, 15]}").codes()).containsExactly(2, 4, 8, 13, 14, 15);
    assertThat(errorCodes("{\"errorCodes\": []}").codes()).isEmpty();
  }

  @Test
  void badEntriesAndKeysNameTheirPaths() {
    assertThat(problems("{\"errorCodes\": [14, 0, 17, \"5\", 2.5], \"codes\": 1}")).containsExactly(
        AT + "errorCodes[1]: 0 is invalid; expected an integer from 1 to 16",
        AT + "errorCodes[2]: 17 is invalid; expected an integer from 1 to 16",
        AT + "errorCodes[3]: \"5\" is invalid; expected an integer from 1 to 16",
        AT + "errorCodes[4]: 2.5 is invalid; expected an integer from 1 to 16",
        AT + "codes: unknown key; expected one of errorCodes");
    assertThat(problems("{\"errorCodes\": 14}"))
        .containsExactly(AT + "errorCodes: 14 is invalid; expected a JSON array of integers from 1 to 16");
  }

  private static String config(String grpc) {
    return "{\"services\": [{\"name\": \"api\"" + (grpc == null ? "" : ", \"grpc\": " + grpc)
        + ", \"backends\": [{\"url\": \"http://127.0.0.1:9001\"}]}]}";
  }

  private static GrpcErrorCodes errorCodes(String grpc) throws ConfigException {
    return ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(config(grpc))), Map.of())
        .services().get(0).grpc().errorCodes();
  }

  private static List<String> problems(String grpc) {
    try {
      throw new AssertionError("accepted: " + ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(config(grpc))), Map.of()));
    } catch (ConfigException e) {
      return e.problems();
    }
  }
}
