package dev.fairway.proxy.wire;

import java.nio.charset.StandardCharsets;

/**
 * Reading a checked message head as bytes (ISO-8859-1, one char a byte): where a byte is, whether
 * a field name is one Fairway acts on, and a field's value.
 *
 * <p>Example: in {@code "Host: a\r\n"} at 0, {@code indexOf(h, ':', 0, 7)} is 4,
 * {@code nameIs(h, 0, "host")} is true and {@code value(h, 5, 7)} is {@code "a"}.
 */
public final class HeadBytes {
  private HeadBytes() {
  }

  /** Where {@code b} first is in {@code h[from, end)}; {@code end} if nowhere. */
  static int indexOf(byte[] h, byte b, int from, int end) {
    for (int p = from; p < end; p++) {
      if (h[p] == b) {
        return p;
      }
    }
    return end;
  }

  /**
   * Whether the bytes at {@code s} begin with {@code lower} in any case; for field names, which
   * the guard made sure are tokens (no byte of a token but a letter folds onto a letter or '-').
   */
  static boolean nameIs(byte[] h, int s, String lower) {
    for (int i = 0; i < lower.length(); i++) {
      if ((h[s + i] | 0x20) != lower.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** Whether the field name {@code h[s, s + n)} is one of {@code lowerNames}, in any case. */
  static boolean isOneOf(byte[] h, int s, int n, String[] lowerNames) {
    for (String name : lowerNames) {
      if (name.length() == n && nameIs(h, s, name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the name {@code h[s, s + n)} is one of the comma-separated tokens of a
   * {@code Connection} value ({@code null}: none), in any case; spaces and tabs around a token
   * do not count.
   */
  static boolean listedIn(String connection, byte[] h, int s, int n) {
    if (connection == null) {
      return false;
    }
    int len = connection.length();
    for (int start = 0; start < len; ) {
      int comma = connection.indexOf(',', start);
      int end = comma < 0 ? len : comma;
      int a = valueStart(connection, start, end);
      int b = valueEnd(connection, a, end);
      if (b - a == n && sameIgnoringCase(connection, a, h, s, n)) {
        return true;
      }
      start = end + 1;
    }
    return false;
  }

  private static boolean sameIgnoringCase(String text, int from, byte[] h, int s, int n) {
    for (int i = 0; i < n; i++) {
      if (lower(text.charAt(from + i)) != lower((char) (h[s + i] & 0xff))) {
        return false;
      }
    }
    return true;
  }

  private static char lower(char c) {
    return c >= 'A' && c <= 'Z' ? (char) (c + 32) : c;
  }

  private static int valueStart(String v, int from, int end) {
    int s = from;
    while (s < end && (v.charAt(s) == ' ' || v.charAt(s) == '\t')) {
      s++;
    }
    return s;
  }

  private static int valueEnd(String v, int start, int end) {
    int e = end;
    while (e > start && (v.charAt(e - 1) == ' ' || v.charAt(e - 1) == '\t')) {
      e--;
    }
    return e;
  }

  /** A field value without surrounding spaces and tabs. */
  static String value(byte[] h, int from, int end) {
    int s = valueStart(h, from, end);
    return new String(h, s, valueEnd(h, s, end) - s, StandardCharsets.ISO_8859_1);
  }

  /** Where a field value in {@code h[from, end)} begins: past leading spaces and tabs. */
  static int valueStart(byte[] h, int from, int end) {
    int s = from;
    while (s < end && (h[s] == ' ' || h[s] == '\t')) {
      s++;
    }
    return s;
  }

  /** Where a field value that begins at {@code start} ends: before trailing spaces and tabs. */
  static int valueEnd(byte[] h, int start, int end) {
    int e = end;
    while (e > start && (h[e - 1] == ' ' || h[e - 1] == '\t')) {
      e--;
    }
    return e;
  }
}
