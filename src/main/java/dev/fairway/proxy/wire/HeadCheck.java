package dev.fairway.proxy.wire;

import dev.fairway.config.EdgeLimits;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Validates one complete HTTP/1.1 message head (start line and field lines, CRLF-terminated) by
 * RFC 9112 and tells how its body is framed. Pure: no I/O.
 *
 * <p>Example: {@code "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"}
 * is {@link Failure#MALFORMED_REQUEST} (two framings); {@code "GET / HTTP/1.1\r\nHost: a\r\n\r\n"} is
 * valid with body length 0. The same faults in a backend's response head give
 * {@link Failure#BAD_RESPONSE}.
 */
public final class HeadCheck {
  /** Body length of a chunked message. */
  static final long CHUNKED = -1;
  /** Body length of a response delimited by the connection's close. */
  static final long UNTIL_CLOSE = -2;
  /** Which bytes are tchars (RFC 9110 §5.6.2), by value. */
  private static final boolean[] TCHAR = tchars();
  /** Reads eight bytes of a head at once. */
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** The outcome: either a failure, or the message's framing. */
  record Verdict(Failure failure, long bodyLength, int status, boolean upgrade) {
    static Verdict fail(Failure f) {
      return new Verdict(f, 0, 0, false);
    }

    boolean ok() {
      return failure == null;
    }
  }

  /** The verdict of most requests: valid, no body, no upgrade. */
  private static final Verdict BODYLESS_REQUEST = new Verdict(null, 0, 0, false);

  private HeadCheck() {
  }

  /** Validates a request head (without leading empty lines), ending with the blank line. */
  static Verdict request(byte[] head, int length, EdgeLimits limits) {
    return check(head, length, true, limits, false);
  }

  /**
   * Validates a response head.
   *
   * @param toHead whether it answers a {@code HEAD} request (then there is no body)
   */
  static Verdict response(byte[] head, int length, boolean toHead) {
    return check(head, length, false, null, toHead);
  }

  /**
   * Works on the bytes as they are (ISO-8859-1, one char a byte) and allocates nothing for the
   * usual head (a {@code Transfer-Encoding} or an unusual {@code Content-Length} value is read
   * as a string): this runs for every request and every response.
   */
  private static Verdict check(byte[] h, int len, boolean request, EdgeLimits limits, boolean toHead) {
    Failure bad = request ? Failure.MALFORMED_REQUEST : Failure.BAD_RESPONSE;
    if (len < 4 || h[len - 4] != '\r' || h[len - 3] != '\n' || h[len - 2] != '\r' || h[len - 1] != '\n') {
      return Verdict.fail(bad);
    }
    int textEnd = len - 4;
    int lines = countLines(h, textEnd);
    if (lines < 0) {
      return Verdict.fail(bad); // a bare CR or LF, or NUL, inside a line
    }
    int startEnd = lineEnd(h, 0, textEnd);
    boolean http10;
    int status = 0;
    if (request) {
      if (startEnd > limits.maxRequestLineBytes()) {
        return Verdict.fail(Failure.URI_TOO_LONG);
      }
      int sp1 = find(h, (byte) ' ', 0, startEnd);
      int sp2 = sp1 < 0 ? -1 : find(h, (byte) ' ', sp1 + 1, startEnd);
      if (sp2 < 0 || find(h, (byte) ' ', sp2 + 1, startEnd) >= 0 || tokenEnd(h, 0, sp1) != sp1 || sp1 == 0
          || sp2 == sp1 + 1 || !isTarget(h, sp1 + 1, sp2) || !isVersion(h, sp2 + 1, startEnd)) {
        return Verdict.fail(bad);
      }
      http10 = h[startEnd - 1] == '0';
      if (lines - 1 > limits.maxHeaderCount()) {
        return Verdict.fail(Failure.HEADERS_TOO_LARGE);
      }
    } else {
      if (startEnd < 12 || !isVersion(h, 0, 8) || h[8] != ' ' || !isDigit(h[9]) || !isDigit(h[10])
          || !isDigit(h[11]) || (startEnd > 12 && h[12] != ' ')) {
        return Verdict.fail(bad);
      }
      http10 = h[7] == '0';
      status = (h[9] - '0') * 100 + (h[10] - '0') * 10 + (h[11] - '0');
      if (status < 100) {
        return Verdict.fail(bad);
      }
    }
    String te = null;
    int contentLengths = 0;
    long cl = -1;
    int hosts = 0;
    int hostFrom = 0;
    int hostEnd = 0;
    boolean upgrade = false;
    for (int s = startEnd + 2; s <= textEnd && startEnd < textEnd; ) {
      int e = lineEnd(h, s, textEnd);
      int colon = tokenEnd(h, s, e);
      if (colon == s || colon == e || h[colon] != ':') {
        // an empty field line, obs-fold (RFC 9112 §5.2), no colon, or a name that is no token
        // (whitespace before the colon included, §5.1)
        return Verdict.fail(bad);
      }
      switch (colon - s) {
        case 17 -> {
          if (nameIs(h, s, colon, "transfer-encoding")) {
            String value = value(h, colon + 1, e);
            te = te == null ? value : te + "," + value;
          }
        }
        case 14 -> {
          if (nameIs(h, s, colon, "content-length")) {
            contentLengths++;
            cl = contentLength(h, colon + 1, e);
          }
        }
        case 4 -> {
          if (nameIs(h, s, colon, "host")) {
            hosts++;
            hostFrom = HeadBytes.valueStart(h, colon + 1, e);
            hostEnd = HeadBytes.valueEnd(h, hostFrom, e);
          }
        }
        case 7 -> {
          if (nameIs(h, s, colon, "upgrade")) {
            upgrade = true;
          }
        }
        default -> {
        }
      }
      s = e + 2;
    }
    if (request && hosts != 1 && !http10) {
      return Verdict.fail(bad);
    }
    if (request && (hosts > 1 || hosts == 1 && !Authority.valid(h, hostFrom, hostEnd)
        || !Authority.targetMatchesHost(h, find(h, (byte) ' ', 0, startEnd) + 1, hosts == 1, hostFrom, hostEnd))) {
      return Verdict.fail(bad);
    }
    long length;
    if (te != null) {
      if (contentLengths > 0 || http10 || !chunkedLast(te)) {
        return Verdict.fail(bad);
      }
      length = CHUNKED;
    } else if (contentLengths > 0) {
      if (contentLengths > 1 || cl < 0) {
        return Verdict.fail(bad); // a repeated field is refused even with equal values (see contentLength)
      }
      length = cl;
    } else {
      length = request ? 0 : UNTIL_CLOSE;
    }
    if (!request && (toHead || status < 200 || status == 204 || status == 304)) {
      length = 0;
    }
    if (length == 0 && status == 0 && !upgrade) {
      return BODYLESS_REQUEST;
    }
    return new Verdict(null, length, status, upgrade);
  }

  /**
   * The number of lines of {@code h[0, end)} (CRLF-separated), or -1 if a CR or LF stands
   * alone or another control character than HTAB appears (NUL, {@code \x01}, VT, DEL…: RFC 9110
   * §5.5 lets a recipient refuse them, and a backend may read them as line ends). Eight bytes at
   * a time while none of them is a control character.
   */
  private static int countLines(byte[] h, int end) {
    int lines = 1;
    int p = 0;
    while (p < end) {
      if (p + 8 <= end && !hasControl((long) LONGS.get(h, p))) {
        p += 8;
        continue;
      }
      for (int stop = Math.min(p + 8, end); p < stop; p++) {
        byte b = h[p];
        if (b == '\r') {
          if (p + 1 >= end || h[p + 1] != '\n') {
            return -1;
          }
          lines++;
          p++;
        } else if (b >= 0 && b < 0x20 && b != '\t' || b == 0x7f) {
          return -1;
        }
      }
    }
    return lines;
  }

  /** Whether a byte of {@code x} is below {@code 0x20} (CR, LF, HTAB and the other controls) or DEL. */
  private static boolean hasControl(long x) {
    long del = x ^ 0x7F7F7F7F7F7F7F7FL;
    return ((((x - 0x2020202020202020L) & ~x) | ((del - 0x0101010101010101L) & ~del)) & 0x8080808080808080L) != 0;
  }

  /** Whether a byte of {@code x} is CR. */
  private static boolean hasCr(long x) {
    long y = x ^ 0x0D0D0D0D0D0D0D0DL;
    return ((y - 0x0101010101010101L) & ~y & 0x8080808080808080L) != 0;
  }

  /**
   * Where the line starting at {@code from} ends: its CR (which {@link #countLines} made sure
   * starts a CRLF), or {@code end}.
   */
  private static int lineEnd(byte[] h, int from, int end) {
    int p = from;
    while (p + 8 <= end && !hasCr((long) LONGS.get(h, p))) {
      p += 8;
    }
    for (; p < end; p++) {
      if (h[p] == '\r') {
        return p;
      }
    }
    return end;
  }

  /** Where {@code b} first is in {@code h[from, end)}; -1 if nowhere (unlike {@link HeadBytes#indexOf}, which gives {@code end}). */
  private static int find(byte[] h, byte b, int from, int end) {
    for (int p = from; p < end; p++) {
      if (h[p] == b) {
        return p;
      }
    }
    return -1;
  }

  /** Whether {@code h[from, end)} is the field name {@code lower}, in any case. */
  private static boolean nameIs(byte[] h, int from, int end, String lower) {
    if (end - from != lower.length()) {
      return false;
    }
    for (int p = from; p < end; p++) {
      if ((h[p] | 0x20) != lower.charAt(p - from)) {
        return false;
      }
    }
    return true;
  }

  /** A field value without its surrounding whitespace, as {@link String#strip()} has it. */
  private static String value(byte[] h, int from, int end) {
    return new String(h, from, end - from, StandardCharsets.ISO_8859_1).strip();
  }

  /**
   * Whether a request target has no control character, whitespace or DEL (RFC 9112 §3.2: a
   * backend could split the line elsewhere); bytes above 0x7F pass, as most servers take them.
   */
  private static boolean isTarget(byte[] h, int from, int end) {
    for (int p = from; p < end; p++) {
      int b = h[p] & 0xff;
      if (b <= 0x20 || b == 0x7f) {
        return false;
      }
    }
    return true;
  }

  private static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }

  private static boolean isVersion(byte[] h, int from, int end) {
    return end - from == 8 && h[from] == 'H' && h[from + 1] == 'T' && h[from + 2] == 'T' && h[from + 3] == 'P'
        && h[from + 4] == '/' && h[from + 5] == '1' && h[from + 6] == '.' && (h[from + 7] == '1' || h[from + 7] == '0');
  }

  /** Whether {@code c} may be part of a token (RFC 9110 §5.6.2), such as a method or a field name. */
  public static boolean isTokenChar(char c) {
    return c < 256 && TCHAR[c];
  }

  /** Where the token starting at {@code from} ends: at the first byte that is no tchar, or {@code end}. */
  private static int tokenEnd(byte[] h, int from, int end) {
    int p = from;
    while (p < end && TCHAR[h[p] & 0xff]) {
      p++;
    }
    return p;
  }

  /**
   * A {@code Content-Length} value in {@code h[from, end)}: digits between spaces or tabs are read
   * in place; anything else goes through {@link #contentLength(String)} as the stripped string.
   */
  private static long contentLength(byte[] h, int from, int end) {
    int s = HeadBytes.valueStart(h, from, end);
    int e = HeadBytes.valueEnd(h, s, end);
    if (e == s || e - s > 18) {
      return contentLength(value(h, from, end));
    }
    long v = 0;
    for (int p = s; p < e; p++) {
      int d = h[p] - '0';
      if (d < 0 || d > 9) {
        return contentLength(value(h, from, end));
      }
      v = v * 10 + d;
    }
    return v;
  }

  /** Whether a Transfer-Encoding list ends in {@code chunked} and names it only once (§6.1). */
  static boolean chunkedLast(String te) {
    String[] codings = te.split(",", -1);
    int chunked = 0;
    for (String c : codings) {
      String coding = c.strip();
      if (coding.isEmpty()) {
        return false;
      }
      if (coding.equalsIgnoreCase("chunked")) {
        chunked++;
      }
    }
    return chunked == 1 && codings[codings.length - 1].strip().equalsIgnoreCase("chunked");
  }

  /**
   * One decimal length (§6.3); -1 when invalid, overflowing or repeated (even with equal values,
   * which the RFC lets a recipient accept: Netty's decoder underneath does not, so one rule).
   */
  static long contentLength(String cl) {
    int start = 0;
    int end = cl.length();
    while (start < end && (cl.charAt(start) == ' ' || cl.charAt(start) == '\t')) {
      start++;
    }
    while (end > start && (cl.charAt(end - 1) == ' ' || cl.charAt(end - 1) == '\t')) {
      end--;
    }
    if (end == start || end - start > 18) {
      return -1;
    }
    long v = 0;
    for (int i = start; i < end; i++) {
      char c = cl.charAt(i);
      if (c < '0' || c > '9') {
        return -1; // also a list such as "5, 5"
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  static boolean isToken(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (!isTokenChar(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean[] tchars() {
    boolean[] t = new boolean[256];
    for (char c = 0; c < 256; c++) {
      t[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
    return t;
  }
}
