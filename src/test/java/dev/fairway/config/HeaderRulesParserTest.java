package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.control.JsonValues;
import io.vertx.core.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A service's {@code requestHeaders} and {@code responseHeaders}: the edits as given (in order),
 * none by default, and one line with its path for every bad name or value.
 */
class HeaderRulesParserTest {
  private static final String S = "services[0].";
  private static final String NAME = "a header name made of token characters (RFC 9110 §5.6.2), with no underscore, "
      + "not hop-by-hop and not one Fairway sets or reads itself (Host, Via, Forwarded, X-Forwarded-*, "
      + "X-Request-Id, X-Fairway-*, grpc-timeout, traceparent, tracestate, ...)";
  private static final String VALUE = "a string of visible characters, spaces and tabs (no CR, LF, NUL or other "
      + "control character, nothing beyond ISO-8859-1)";

  @Test
  void withoutTheKeysThereAreNoRules() throws Exception {
    assertThat(rules("")).isSameAs(HeaderRules.NONE);
    assertThat(rules(", \"requestHeaders\": {}, \"responseHeaders\": {\"remove\": []}")).isSameAs(HeaderRules.NONE);
  }

  @Test
  void setAddAndRemoveKeepTheirOrderAndRemovedNamesAreLowerCase() throws Exception {
    HeaderRules r = rules(", \"requestHeaders\": {\"set\": {\"X-Env\": \"prod\", \"A-First\": \"1\"}, "
        + "\"add\": {\"X-Tag\": \"a b\"}, \"remove\": [\"Cookie\", \"X-Debug\"]},"
        + " \"responseHeaders\": {\"remove\": [\"Server\"], \"set\": {\"Cookie\": \"x\"}}");
    assertThat(r.request().set().keySet()).containsExactly("X-Env", "A-First");
    assertThat(r.request()).isEqualTo(new HeaderEdit(Map.of("X-Env", "prod", "A-First", "1"), Map.of("X-Tag", "a b"),
        List.of("cookie", "x-debug")));
    assertThat(r.response()).isEqualTo(new HeaderEdit(Map.of("Cookie", "x"), Map.of(), List.of("server")));
  }

  @Test
  void reservedNamesBadValuesAndRepeatsNameTheirPaths() {
    assertThat(problems(", \"requestHeaders\": {\"set\": {\"Host\": \"a\", \"X-Forwarded-For\": \"1.2.3.4\", "
        + "\"X-Ok\": \"a\\r\\nX-Evil: 1\", \"x_under\": \"u\"}, \"add\": {\"Proxy-Status\": \"x\", \"X-N\": 7}, "
        + "\"remove\": [\"Transfer-Encoding\", \"X-Request-Id\", \"x-a\", \"X-A\", 3]},"
        + " \"responseHeaders\": {\"set\": {\"Content-Length\": \"0\", \"X-Fairway-Attempt\": \"2\"}, \"drop\": []}"))
        .containsExactly(
            S + "requestHeaders.remove[0]: \"Transfer-Encoding\" is invalid; expected " + NAME,
            S + "requestHeaders.remove[1]: \"X-Request-Id\" is invalid; expected " + NAME,
            S + "requestHeaders.remove[3]: \"X-A\" is invalid; expected each header name once (names match in any case)",
            S + "requestHeaders.remove[4]: 3 is invalid; expected a header name",
            S + "requestHeaders.set.Host: \"Host\" is invalid; expected " + NAME,
            S + "requestHeaders.set.X-Forwarded-For: \"X-Forwarded-For\" is invalid; expected " + NAME,
            S + "requestHeaders.set.X-Ok: \"a\\r\\nX-Evil: 1\" is invalid; expected " + VALUE,
            S + "requestHeaders.set.x_under: \"x_under\" is invalid; expected " + NAME,
            S + "requestHeaders.add.Proxy-Status: \"Proxy-Status\" is invalid; expected " + NAME,
            S + "requestHeaders.add.X-N: 7 is invalid; expected " + VALUE,
            S + "responseHeaders.set.Content-Length: \"Content-Length\" is invalid; expected " + NAME,
            S + "responseHeaders.set.X-Fairway-Attempt: \"X-Fairway-Attempt\" is invalid; expected " + NAME,
            S + "responseHeaders.drop: unknown key; expected one of remove, set, add");
  }

  @Test
  void theEditsMustBeObjectsOfStrings() {
    assertThat(problems(", \"requestHeaders\": {\"set\": [\"X-A\"], \"remove\": \"X-B\"}, \"responseHeaders\": 1"))
        .containsExactly(
            S + "requestHeaders.remove: \"X-B\" is invalid; expected a JSON array of header names",
            S + "requestHeaders.set: an array is invalid; expected a JSON object of header names to values",
            S + "responseHeaders: 1 is invalid; expected a JSON object");
  }

  @Test
  void theOverloadHeadersAreFairwaysOwnToo() {
    String expected = "expected a header other than overload.criticalityHeader and overload.deadlineHeader "
        + "(X-Criticality, X-Request-Timeout-Ms), which Fairway forwards itself";
    assertThat(problems(", \"requestHeaders\": {\"set\": {\"x-criticality\": \"sheddable\"}, "
        + "\"remove\": [\"X-Request-Timeout-Ms\"]}, \"responseHeaders\": {\"set\": {\"X-Criticality\": \"a\"}}"))
        .containsExactly(
            S + "requestHeaders.remove: \"x-request-timeout-ms\" is invalid; " + expected,
            S + "requestHeaders.set.x-criticality: \"x-criticality\" is invalid; " + expected);
  }

  private static String config(String keys) {
    return "{\"services\": [{\"name\": \"api\"" + keys + ", \"backends\": [{\"url\": \"http://127.0.0.1:9001\"}]}]}";
  }

  private static HeaderRules rules(String keys) throws ConfigException {
    return ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(config(keys))), Map.of()).services().get(0).headers();
  }

  private static List<String> problems(String keys) {
    try {
      throw new AssertionError("accepted: " + ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(config(keys))),
          Map.of()));
    } catch (ConfigException e) {
      return e.problems();
    }
  }
}
