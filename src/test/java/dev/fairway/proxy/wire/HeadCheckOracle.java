package dev.fairway.proxy.wire;

import dev.fairway.config.EdgeLimits;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The first, string-based {@link HeadCheck}: split into lines, split the start line on spaces,
 * lower-case each name. Slow (it allocates every line) but plainly RFC 9112 as written, so the
 * byte-level check is tested against it.
 *
 * <p>Example: {@code verdict("GET / HTTP/1.1\r\nHost: a\r\n\r\n", true, limits, false)} is valid with
 * body length 0, exactly as {@link HeadCheck#request} says for the same bytes.
 */
final class HeadCheckOracle {
  /** RFC 3986's host (reg-name without the comma, IPv4, or a bracketed IP literal) and port. */
  private static final Pattern AUTHORITY =
      Pattern.compile("(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9\\-._~%!$&'()*+;=]*)(:[0-9]{0,5})?");
  private static final Pattern ABSOLUTE_FORM = Pattern.compile("[A-Za-z0-9+.-]+://([^/?#]*).*");

  private HeadCheckOracle() {
  }

  static HeadCheck.Verdict verdict(String text, boolean request, EdgeLimits limits, boolean toHead) {
    Failure bad = request ? Failure.MALFORMED_REQUEST : Failure.BAD_RESPONSE;
    if (!text.endsWith("\r\n\r\n")) {
      return HeadCheck.Verdict.fail(bad);
    }
    String[] lines = text.substring(0, text.length() - 4).split("\r\n", -1);
    for (String line : lines) {
      if (line.chars().anyMatch(c -> c < 0x20 && c != '\t' || c == 0x7f)) {
        return HeadCheck.Verdict.fail(bad);
      }
    }
    String start = lines[0];
    boolean http10;
    int status = 0;
    if (request) {
      if (start.length() > limits.maxRequestLineBytes()) {
        return HeadCheck.Verdict.fail(Failure.URI_TOO_LONG);
      }
      String[] parts = start.split(" ", -1);
      if (parts.length != 3 || !HeadCheck.isToken(parts[0]) || parts[1].isEmpty()
          || parts[1].chars().anyMatch(c -> c <= 0x20 || c == 0x7f) || !version(parts[2])) {
        return HeadCheck.Verdict.fail(bad);
      }
      http10 = parts[2].equals("HTTP/1.0");
      if (lines.length - 1 > limits.maxHeaderCount()) {
        return HeadCheck.Verdict.fail(Failure.HEADERS_TOO_LARGE);
      }
    } else {
      if (start.length() < 12 || !version(start.substring(0, 8)) || start.charAt(8) != ' '
          || !Character.isDigit(start.charAt(9)) || !Character.isDigit(start.charAt(10))
          || !Character.isDigit(start.charAt(11)) || (start.length() > 12 && start.charAt(12) != ' ')) {
        return HeadCheck.Verdict.fail(bad);
      }
      http10 = start.startsWith("HTTP/1.0");
      status = Integer.parseInt(start.substring(9, 12));
      if (status < 100) {
        return HeadCheck.Verdict.fail(bad);
      }
    }
    String te = null;
    String cl = null;
    int hosts = 0;
    String host = null;
    boolean upgrade = false;
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      if (line.isEmpty() || line.charAt(0) == ' ' || line.charAt(0) == '\t') {
        return HeadCheck.Verdict.fail(bad);
      }
      int colon = line.indexOf(':');
      if (colon <= 0 || !HeadCheck.isToken(line.substring(0, colon))) {
        return HeadCheck.Verdict.fail(bad);
      }
      String value = line.substring(colon + 1).strip();
      switch (line.substring(0, colon).toLowerCase(Locale.ROOT)) {
        case "transfer-encoding" -> te = te == null ? value : te + "," + value;
        case "content-length" -> cl = cl == null ? value : cl + "," + value;
        case "host" -> {
          hosts++;
          host = value;
        }
        case "upgrade" -> upgrade = true;
        default -> { }
      }
    }
    if (request && (hosts > 1 || hosts != 1 && !http10 || host != null && !AUTHORITY.matcher(host).matches())) {
      return HeadCheck.Verdict.fail(bad);
    }
    Matcher absolute = ABSOLUTE_FORM.matcher(start.split(" ", -1)[1]);
    if (request && absolute.matches() && (!AUTHORITY.matcher(absolute.group(1)).matches()
        || host != null && !host.equalsIgnoreCase(absolute.group(1)))) {
      return HeadCheck.Verdict.fail(bad);
    }
    long length = request ? 0 : HeadCheck.UNTIL_CLOSE;
    if (te != null) {
      if (cl != null || http10 || !HeadCheck.chunkedLast(te)) {
        return HeadCheck.Verdict.fail(bad);
      }
      length = HeadCheck.CHUNKED;
    } else if (cl != null) {
      length = HeadCheck.contentLength(cl);
      if (length < 0) {
        return HeadCheck.Verdict.fail(bad);
      }
    }
    if (!request && (toHead || status < 200 || status == 204 || status == 304)) {
      length = 0;
    }
    return new HeadCheck.Verdict(null, length, status, upgrade);
  }

  private static boolean version(String s) {
    return s.equals("HTTP/1.1") || s.equals("HTTP/1.0");
  }
}
