package dev.fairway.tracing;

/**
 * The W3C {@code tracestate} field (https://www.w3.org/TR/trace-context/ §3.3): vendors' opaque
 * entries, which Fairway forwards unchanged when they are well formed and short enough.
 *
 * <p>Example: {@code valid("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")} and
 * {@code valid("tenant@vendor=x, ,other=1")} are true (empty members are allowed);
 * {@code valid("Congo=t61")} (upper-case key), {@code valid("congo")} (no value),
 * {@code valid("a=b=c")}, 33 members or 513 characters are false: such a field is dropped.
 */
public final class TraceState {
  /** The field's name. */
  public static final String HEADER = "tracestate";
  /** The longest field forwarded (§3.3.1.1: vendors should propagate at least 512 characters). */
  public static final int MAX_LENGTH = 512;
  /** The most list members (§3.3.1.1). */
  static final int MAX_MEMBERS = 32;

  private TraceState() {
  }

  /** Whether {@code value} is a well-formed {@code tracestate} of at most {@value #MAX_LENGTH} characters. */
  public static boolean valid(String value) {
    if (value == null || value.length() > MAX_LENGTH) {
      return false;
    }
    int members = 0;
    int start = 0;
    while (start <= value.length()) {
      int comma = value.indexOf(',', start);
      int end = comma < 0 ? value.length() : comma;
      int from = start;
      int to = end;
      while (from < to && isOws(value.charAt(from))) {
        from++;
      }
      while (to > from && isOws(value.charAt(to - 1))) {
        to--;
      }
      if (from < to) {
        if (++members > MAX_MEMBERS || !member(value, from, to)) {
          return false;
        }
      }
      start = end + 1;
    }
    return true;
  }

  /** {@code key=value} at {@code s[from, to)}: a key of lower-case letters, digits and {@code _-*}{@code /}, at most one {@code @}, and a printable value without {@code ,} or {@code =}. */
  private static boolean member(String s, int from, int to) {
    int eq = s.indexOf('=', from);
    if (eq <= from || eq >= to - 1 || eq - from > 256 || to - eq - 1 > 256) {
      return false;
    }
    char first = s.charAt(from);
    if (!(first >= 'a' && first <= 'z' || first >= '0' && first <= '9')) {
      return false;
    }
    int ats = 0;
    for (int i = from; i < eq; i++) {
      char c = s.charAt(i);
      if (c == '@') {
        ats++;
      } else if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '*' || c == '/')) {
        return false;
      }
    }
    if (ats > 1 || s.charAt(eq - 1) == '@') {
      return false;
    }
    for (int i = eq + 1; i < to; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c > 0x7e || c == ',' || c == '=') {
        return false;
      }
    }
    return true;
  }

  private static boolean isOws(char c) {
    return c == ' ' || c == '\t';
  }
}
