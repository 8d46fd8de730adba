package dev.fairway.proxy.wire;

import io.netty.util.AsciiString;
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
   * Whether the field name {@code h[s, s + n)} is one of the comma-separated tokens of a
   * {@code Connection} value ({@code null}: none), in any case; as {@link Headers#listedIn}.
   */
  static boolean listedIn(String connection, byte[] h, int s, int n) {
    return connection != null && Headers.listedIn(connection, new AsciiString(h, s, n, false)); // a view, no copy
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
