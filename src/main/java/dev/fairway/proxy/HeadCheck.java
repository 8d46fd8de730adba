package dev.fairway.proxy;

import dev.fairway.config.EdgeLimits;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Validates one complete HTTP/1.1 message head (start line and field lines, CRLF-terminated) by
 * RFC 9112 and tells how its body is framed. Pure: no I/O.
 *
 * <p>Example: {@code "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"}
 * is {@link Failure#MALFORMED_REQUEST} (two framings); {@code "GET / HTTP/1.1\r\nHost: a\r\n\r\n"} is
 * valid with body length 0. The same faults in a backend's response head give
 * {@link Failure#BAD_RESPONSE}.
 */
final class HeadCheck {
  /** Body length of a chunked message. */
  static final long CHUNKED = -1;
  /** Body length of a response delimited by the connection's close. */
  static final long UNTIL_CLOSE = -2;
  private static final String TCHAR = "!#$%&'*+-.^_`|~";

  /** The outcome: either a failure, or the message's framing. */
  record Verdict(Failure failure, long bodyLength, int status, boolean upgrade) {
    static Verdict fail(Failure f) {
      return new Verdict(f, 0, 0, false);
    }

    boolean ok() {
      return failure == null;
    }
  }

  private HeadCheck() {
  }

  /** Validates a request head (without leading empty lines), ending with the blank line. */
  static Verdict request(byte[] head, int length, EdgeLimits limits) {
    return check(new String(head, 0, length, StandardCharsets.ISO_8859_1), true, limits, false);
  }

  /**
   * Validates a response head.
   *
   * @param toHead whether it answers a {@code HEAD} request (then there is no body)
   */
  static Verdict response(byte[] head, int length, boolean toHead) {
    return check(new String(head, 0, length, StandardCharsets.ISO_8859_1), false, null, toHead);
  }

  private static Verdict check(String text, boolean request, EdgeLimits limits, boolean toHead) {
    Failure bad = request ? Failure.MALFORMED_REQUEST : Failure.BAD_RESPONSE;
    if (!text.endsWith("\r\n\r\n")) {
      return Verdict.fail(bad);
    }
    String[] lines = text.substring(0, text.length() - 4).split("\r\n", -1);
    for (String line : lines) {
      if (line.indexOf('\r') >= 0 || line.indexOf('\n') >= 0 || line.indexOf('\0') >= 0) {
        return Verdict.fail(bad);
      }
    }
    String start = lines[0];
    boolean http10;
    int status = 0;
    if (request) {
      if (start.length() > limits.maxRequestLineBytes()) {
        return Verdict.fail(Failure.URI_TOO_LONG);
      }
      String[] parts = start.split(" ", -1);
      if (parts.length != 3 || !isToken(parts[0]) || parts[1].isEmpty() || !isVersion(parts[2])) {
        return Verdict.fail(bad);
      }
      http10 = parts[2].equals("HTTP/1.0");
      if (lines.length - 1 > limits.maxHeaderCount()) {
        return Verdict.fail(Failure.HEADERS_TOO_LARGE);
      }
    } else {
      if (start.length() < 12 || !isVersion(start.substring(0, 8)) || start.charAt(8) != ' '
          || !Character.isDigit(start.charAt(9)) || !Character.isDigit(start.charAt(10))
          || !Character.isDigit(start.charAt(11)) || (start.length() > 12 && start.charAt(12) != ' ')) {
        return Verdict.fail(bad);
      }
      http10 = start.startsWith("HTTP/1.0");
      status = Integer.parseInt(start.substring(9, 12));
      if (status < 100) {
        return Verdict.fail(bad);
      }
    }
    String te = null;
    String cl = null;
    int hosts = 0;
    boolean upgrade = false;
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      if (line.isEmpty() || line.charAt(0) == ' ' || line.charAt(0) == '\t') {
        return Verdict.fail(bad); // obs-fold (RFC 9112 §5.2) or an empty field line
      }
      int colon = line.indexOf(':');
      if (colon <= 0 || !isToken(line.substring(0, colon))) {
        return Verdict.fail(bad); // includes whitespace before the colon (§5.1)
      }
      String name = line.substring(0, colon).toLowerCase(Locale.ROOT);
      String value = line.substring(colon + 1).strip();
      switch (name) {
        case "transfer-encoding" -> te = te == null ? value : te + "," + value;
        case "content-length" -> cl = cl == null ? value : cl + "," + value;
        case "host" -> hosts++;
        case "upgrade" -> upgrade = true;
        default -> { }
      }
    }
    if (request && hosts != 1 && !http10) {
      return Verdict.fail(bad);
    }
    if (request && hosts > 1) {
      return Verdict.fail(bad);
    }
    long length;
    if (te != null) {
      if (cl != null || http10 || !chunkedLast(te)) {
        return Verdict.fail(bad);
      }
      length = CHUNKED;
    } else if (cl != null) {
      length = contentLength(cl);
      if (length < 0) {
        return Verdict.fail(bad);
      }
    } else {
      length = request ? 0 : UNTIL_CLOSE;
    }
    if (!request && (toHead || status < 200 || status == 204 || status == 304)) {
      length = 0;
    }
    return new Verdict(null, length, status, upgrade);
  }

  /** Whether a Transfer-Encoding list ends in {@code chunked} and names it only once (§6.1). */
  private static boolean chunkedLast(String te) {
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
    long result = -1;
    String[] parts = cl.split(",", -1);
    if (parts.length != 1) {
      return -1;
    }
    for (String part : parts) {
      String digits = part.strip();
      if (digits.isEmpty() || digits.length() > 18) {
        return -1;
      }
      for (int i = 0; i < digits.length(); i++) {
        if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
          return -1;
        }
      }
      long v = Long.parseLong(digits);
      if (result >= 0 && v != result) {
        return -1;
      }
      result = v;
    }
    return result;
  }

  /**
   * A chunk-size line's size; -1 when invalid, over 2^60, or carrying an extension (Netty's
   * decoder underneath drops the connection on those, so they get a clear 400 here instead).
   */
  static long chunkSize(String line) {
    String hex = line;
    if (hex.isEmpty() || hex.length() > 15) {
      return -1;
    }
    long v = 0;
    for (int i = 0; i < hex.length(); i++) {
      int d = Character.digit(hex.charAt(i), 16);
      if (d < 0) {
        return -1;
      }
      v = v * 16 + d;
    }
    return v;
  }

  private static boolean isVersion(String s) {
    return s.equals("HTTP/1.1") || s.equals("HTTP/1.0");
  }

  static boolean isToken(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || TCHAR.indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
