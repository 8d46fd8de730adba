package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Host name syntax: ASCII labels of letters, digits, {@code -} and {@code _}, joined by dots. */
class HostNameTest {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', value = {
      "admin.example          | true",
      "Fairway-Admin          | true",
      "my_service             | true",
      "a                      | true",
      "10.0.0.1               | true",
      "xn--bcher-kva.example  | true",
      "admin.example:9090     | false",
      "*.example              | false",
      "a@admin.example        | false",
      "localhost.             | false",
      ".example               | false",
      "a..example             | false",
      "-a.example             | false",
      "a-.example             | false",
      "http://admin.example   | false",
      "admin example          | false",
      "bücher.example         | false",
      "''                     | false",
  })
  void syntax(String text, boolean valid) {
    assertThat(HostName.isValid(text)).isEqualTo(valid);
  }

  @Test
  void lengthLimits() {
    assertThat(HostName.isValid("a".repeat(63) + ".example")).isTrue();
    assertThat(HostName.isValid("a".repeat(64) + ".example")).isFalse();
    assertThat(HostName.isValid("a" + ".a".repeat(126))).isTrue();
    assertThat(HostName.isValid("a" + ".a".repeat(126) + "a")).isFalse();
    assertThat(HostName.isValid(null)).isFalse();
  }
}
