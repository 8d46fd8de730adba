package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.HealthExpectation.StatusRange;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The pure judgement of a health check's answer: exact status ranges, body substrings, texts. */
class HealthExpectationTest {
  private static final HealthExpectation TWO_TO_THREE_OK =
      new HealthExpectation(List.of(new StatusRange(200, 399)), "ok");
  private static final HealthExpectation NO_CONTENT_OR_NOT_FOUND =
      new HealthExpectation(List.of(new StatusRange(204, 204), new StatusRange(404, 404)), null);

  @ParameterizedTest(name = "default: {0} -> {1}")
  @CsvSource(delimiter = '|', nullValues = "-", value = {
      "199 | status 199 not in 200-299",
      "200 | -",
      "204 | -",
      "299 | -",
      "300 | status 300 not in 200-299",
      "301 | status 301 not in 200-299",
      "503 | status 503 not in 200-299",
  })
  void theDefaultAcceptsAny2xxAndAnyBody(int status, String unmet) {
    assertThat(HealthExpectation.DEFAULT.unmet(status, "whatever")).isEqualTo(Optional.ofNullable(unmet));
    assertThat(HealthExpectation.DEFAULT.unmet(status, null)).isEqualTo(Optional.ofNullable(unmet));
    assertThat(HealthExpectation.DEFAULT.matches(status, "")).isEqualTo(unmet == null);
    assertThat(HealthExpectation.DEFAULT.needsBody()).isFalse();
  }

  @ParameterizedTest(name = "200-399 and \"ok\": {0} {1} -> {2}")
  @CsvSource(delimiter = '|', nullValues = "-", value = {
      "200 | ok                | -",
      "200 | status: ok, db: ok | -",
      "301 | ok                | -",
      "399 | {\"ok\":true}      | -",
      "200 | OK                | body lacks \"ok\"",
      "200 | starting          | body lacks \"ok\"",
      "200 | ''                | body lacks \"ok\"",
      "200 | -                 | body lacks \"ok\"",
      "400 | ok                | status 400 not in 200-399",
      "503 | starting          | status 503 not in 200-399",
  })
  void statusIsJudgedFirstThenTheBodyIsSearchedCaseSensitively(int status, String body, String unmet) {
    assertThat(TWO_TO_THREE_OK.unmet(status, body)).isEqualTo(Optional.ofNullable(unmet));
    assertThat(TWO_TO_THREE_OK.matches(status, body)).isEqualTo(unmet == null);
    assertThat(TWO_TO_THREE_OK.needsBody()).isTrue();
  }

  @ParameterizedTest(name = "204, 404: {0} -> {1}")
  @CsvSource(delimiter = '|', nullValues = "-", value = {
      "204 | -",
      "404 | -",
      "200 | status 200 not in 204, 404",
      "205 | status 205 not in 204, 404",
      "403 | status 403 not in 204, 404",
  })
  void severalRangesAcceptAnyOfThem(int status, String unmet) {
    assertThat(NO_CONTENT_OR_NOT_FOUND.unmet(status, null)).isEqualTo(Optional.ofNullable(unmet));
    assertThat(NO_CONTENT_OR_NOT_FOUND.statusText()).isEqualTo("204, 404");
  }

  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @CsvSource(delimiter = '|', nullValues = "-", value = {
      "200-399  | 200-399",
      "204      | 204",
      "' 204 '  | 204",
      "100-599  | 100-599",
      "500-500  | 500",
      "399-200  | -",
      "2xx      | -",
      "99       | -",
      "600      | -",
      "200-600  | -",
      "200-     | -",
      "200,204  | -",
      "200 - 299| -",
      "''       | -",
  })
  void statusRangesParseAndReadBack(String text, String readBack) {
    assertThat(StatusRange.parse(text).map(StatusRange::toString)).isEqualTo(Optional.ofNullable(readBack));
  }
}
