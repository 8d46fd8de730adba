package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.control.JsonValues;
import io.vertx.core.json.Json;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The {@code match.method} and {@code match.headers} keys: what they parse to, how a request is
 * judged by them, and one line with its JSON path for each bad entry (an invalid regex included).
 */
class MatchConditionsTest {
  private static final String M = "services[0].match.";

  @Test
  void methodsAndHeadersAreRead() throws Exception {
    MatchRule r = match("""
        "pathPrefix": "/api", "method": ["post", "PUT", "Post"],
        "headers": [{"name": "X-Canary", "exact": "yes"}, {"name": "user-agent", "prefix": "curl/"},
                    {"name": "x-tenant", "regex": "t-[0-9]+"}]""");
    assertThat(r.methods() + " " + r.headers().stream().map(h -> h.name() + " " + h.kind() + " " + h.value()).toList()
        + " " + r.conditions())
        .isEqualTo("[POST, PUT] [x-canary EXACT yes, user-agent PREFIX curl/, x-tenant REGEX t-[0-9]+] 4");
  }

  @Test
  void aRequestMustSatisfyEveryCondition() throws Exception {
    MatchRule r = match("""
        "method": ["POST"], "headers": [{"name": "x-canary", "exact": "yes"}, {"name": "x-tenant", "regex": "t-[0-9]+"}]""");
    Map<String, String> good = Map.of("x-canary", "yes", "x-tenant", "t-42");
    assertThat(List.of(
        r.matches("h", "/a", "POST", good::get),
        r.matches("h", "/a", "GET", good::get),
        r.matches("h", "/a", "POST", Map.of("x-canary", "Yes", "x-tenant", "t-42")::get),
        r.matches("h", "/a", "POST", Map.of("x-canary", "yes", "x-tenant", "t-42x")::get),
        r.matches("h", "/a", "POST", Map.of("x-tenant", "t-42")::get)))
        .containsExactly(true, false, false, false, false);
  }

  @Test
  void withoutConditionsAnyMethodAndFieldsMatch() throws Exception {
    MatchRule r = match("\"pathPrefix\": \"/\"");
    assertThat(r).isEqualTo(new MatchRule("*", "/"));
    assertThat(r.matches("h", "/x", "DELETE", name -> null)).isTrue();
  }

  @Test
  void stripPrefixAndRewritePrefixGiveTheReplacement() throws Exception {
    assertThat(Stream.of(match("\"stripPrefix\": true"), match("\"rewritePrefix\": \"/v2\""), match("\"stripPrefix\": false"))
        .map(MatchRule::rewritePrefix)).containsExactly("", "/v2", null);
    assertThat(problems("\"stripPrefix\": true, \"rewritePrefix\": \"/v2\"")).containsExactly(
        "services[0].match: has both stripPrefix and rewritePrefix; expected at most one");
    assertThat(problems("\"rewritePrefix\": \"v2\"")).containsExactly(
        M + "rewritePrefix: \"v2\" is invalid; expected a path starting with /");
  }

  @Test
  void badEntriesAreOneLineEachWithTheirPath() {
    assertThat(problems("""
        "method": ["GET", "BAD METHOD", 7],
        "headers": [{"name": "x-v", "regex": "(["}, {"name": "x-w"}, {"name": "x y", "exact": "1"},
                    {"name": "x-z", "exact": "1", "prefix": "2"}, {"exact": "1"}, {"name": "x-q", "exact": "1", "nope": 1}]"""))
        .containsExactly(
            M + "method[1]: \"BAD METHOD\" is invalid; expected a method name",
            M + "method[2]: 7 is invalid; expected a method name",
            M + "headers[0].regex: \"([\" is invalid; expected a regular expression (Unclosed character class near index 1)",
            M + "headers[1]: has none; expected exactly one of exact, prefix, regex",
            M + "headers[2].name: \"x y\" is invalid; expected a header field name",
            M + "headers[3]: has exact and prefix; expected exactly one of exact, prefix, regex",
            M + "headers[4].name: missing; expected a non-empty string",
            M + "headers[5].nope: unknown key; expected one of name, exact, prefix, regex");
  }

  private static MatchRule match(String body) throws ConfigException {
    return ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(config(body))), Map.of()).services().get(0).match();
  }

  private static String config(String body) {
    return "{\"services\": [{\"name\": \"api\", \"backends\": [{\"url\": \"http://127.0.0.1:9001\"}], \"match\": {"
        + body + "}}]}";
  }

  private static List<String> problems(String body) {
    try {
      throw new AssertionError("accepted: " + match(body));
    } catch (ConfigException e) {
      return e.problems();
    }
  }
}
