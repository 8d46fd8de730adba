package dev.fairway.config;

import java.util.regex.Pattern;

/**
 * The syntax of a DNS host name as written in a config file or a {@code Host} header: ASCII
 * labels of letters, digits, {@code -} and {@code _}, joined by dots.
 *
 * <p>Example: {@code isValid("admin.example")}, {@code isValid("Fairway-Admin")} and
 * {@code isValid("my_service")} are true; {@code isValid("admin.example:9090")},
 * {@code isValid("*.example")}, {@code isValid("a@admin.example")}, {@code isValid("localhost.")}
 * (a trailing dot), {@code isValid("-a.example")} and {@code isValid("")} are false.
 */
public final class HostName {
  private static final String LABEL = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";
  private static final Pattern NAME = Pattern.compile(LABEL + "(?:\\." + LABEL + ")*");
  private static final int MAX_LENGTH = 253;

  private HostName() {
  }

  /** Whether {@code text} is a host name: no port, scheme, user, wildcard or trailing dot. */
  public static boolean isValid(String text) {
    return text != null && text.length() <= MAX_LENGTH && NAME.matcher(text).matches();
  }
}
