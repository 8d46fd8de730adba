package dev.fairway.config;

import java.util.regex.Pattern;

/**
 * One header condition of a service's {@code match}: the request's first value of a field must
 * equal, start with, or wholly match a regular expression.
 *
 * <p>Example: {@code {"name": "X-Canary", "exact": "yes"}} matches a request with
 * {@code X-Canary: yes} and not one with {@code X-Canary: Yes} or without the field;
 * {@code {"name": "user-agent", "regex": "curl/.*"}} matches {@code User-Agent: curl/8.5.0}.
 *
 * @param name    lower-case field name
 * @param kind    how the value is compared
 * @param value   the exact value, the prefix, or the regular expression's source
 * @param pattern the compiled regular expression ({@code null} unless {@code kind} is {@link Kind#REGEX})
 */
public record HeaderCondition(String name, Kind kind, String value, Pattern pattern) {
  /** How a field's value is compared: case-sensitive, as sent. */
  public enum Kind { EXACT, PREFIX, REGEX }

  /** Whether a field's first value ({@code null}: the field is absent) satisfies this condition. */
  public boolean test(String fieldValue) {
    if (fieldValue == null) {
      return false;
    }
    return switch (kind) {
      case EXACT -> fieldValue.equals(value);
      case PREFIX -> fieldValue.startsWith(value);
      case REGEX -> pattern.matcher(fieldValue).matches();
    };
  }
}
