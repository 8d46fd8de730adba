package dev.fairway.tracing;

/**
 * A W3C {@code traceparent} field (https://www.w3.org/TR/trace-context/ §3.2): the trace a request
 * belongs to, the span that sent it, and its flags (bit 0: sampled).
 *
 * <p>Example: {@code parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")} is trace
 * {@code 4bf92f3577b34da6a3ce929d0e0e4736}, parent {@code 00f067aa0ba902b7}, sampled; an all-zero id,
 * upper-case hex, version {@code ff} or a wrong length give {@code null} (a new trace starts).
 * {@code format(trace, "b7ad6b7169203331", 1)} is {@code "00-4bf9…4736-b7ad6b7169203331-01"}.
 *
 * @param traceId  32 lower-case hex digits, not all zero
 * @param parentId 16 lower-case hex digits, not all zero
 * @param flags    the trace flags, 0 to 255
 */
public record TraceParent(String traceId, String parentId, int flags) {
  /** The field's name. */
  public static final String HEADER = "traceparent";
  /** Length of a version-00 value: {@code 2 + 1 + 32 + 1 + 16 + 1 + 2}. */
  static final int LENGTH = 55;
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /**
   * The parsed field, or {@code null} when absent or invalid. A version above 00 is read as 00
   * when its first 55 characters have 00's shape and any more follow a dash (§4.3, forward
   * compatibility); version {@code ff} is never valid.
   */
  public static TraceParent parse(String value) {
    if (value == null || value.length() < LENGTH) {
      return null;
    }
    int version = hexByte(value, 0);
    if (version < 0 || version == 0xff || value.charAt(2) != '-' || value.charAt(35) != '-'
        || value.charAt(52) != '-') {
      return null;
    }
    if (value.length() > LENGTH && (version == 0 || value.charAt(LENGTH) != '-')) {
      return null;
    }
    int flags = hexByte(value, 53);
    if (flags < 0 || !nonZeroHex(value, 3, 35) || !nonZeroHex(value, 36, 52)) {
      return null;
    }
    return new TraceParent(value.substring(3, 35), value.substring(36, 52), flags);
  }

  /** Whether the sender sampled the trace (flag bit 0). */
  public boolean sampled() {
    return (flags & 1) != 0;
  }

  /** A version-00 value for the span {@code spanId} of trace {@code traceId}. */
  public static String format(String traceId, String spanId, int flags) {
    return "00-" + traceId + '-' + spanId + '-' + HEX[(flags >> 4) & 0xF] + HEX[flags & 0xF];
  }

  /** Whether {@code s[from, to)} is lower-case hex digits, not all {@code 0}. */
  private static boolean nonZeroHex(String s, int from, int to) {
    boolean nonZero = false;
    for (int i = from; i < to; i++) {
      int d = digit(s.charAt(i));
      if (d < 0) {
        return false;
      }
      nonZero |= d != 0;
    }
    return nonZero;
  }

  /** The byte of the two lower-case hex digits at {@code at}, or -1. */
  private static int hexByte(String s, int at) {
    int hi = digit(s.charAt(at));
    int lo = digit(s.charAt(at + 1));
    return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
  }

  private static int digit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  }
}
