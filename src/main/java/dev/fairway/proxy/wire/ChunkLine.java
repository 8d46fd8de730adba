package dev.fairway.proxy.wire;

/**
 * Reads a chunk-size line of a chunked body (RFC 9112 §7.1), without its CRLF: the size in hex,
 * then optional chunk extensions, which are checked and ignored (§7.1.1). Pure: no I/O.
 *
 * <p>Example: {@code "1a"} is 26; {@code "5;name=value"} and {@code "5 ; n=\"q s\""} are 5; {@code "zz"},
 * {@code "5;"} and {@code "5;a=\"open"} are invalid (-1). So is {@code "80000000"} (2^31) and
 * anything larger: Netty's decoder behind the guard keeps a chunk's size in an {@code int} and
 * reads {@code "100000000"} (2^32) as 0, so the guard and the decoder would disagree on where the
 * body ends (request smuggling). Every size the guard accepts, the decoder reads the same.
 */
public final class ChunkLine {
  /** The largest chunk size both the guard and Netty's decoder can represent. */
  static final long MAX_SIZE = Integer.MAX_VALUE;

  private ChunkLine() {
  }

  /** The chunk size of {@code line}, or -1 when the line is invalid or the size over {@link #MAX_SIZE}. */
  static long size(CharSequence line) {
    int n = line.length();
    int i = 0;
    long v = 0;
    while (i < n) {
      int d = Character.digit(line.charAt(i), 16);
      if (d < 0 || line.charAt(i) > 'f') {
        break; // Character.digit also takes non-ASCII digits
      }
      v = v * 16 + d;
      if (v > MAX_SIZE) {
        return -1;
      }
      i++;
    }
    if (i == 0) {
      return -1;
    }
    return extensionsEnd(line, i) == n ? v : -1;
  }

  /** Whether {@code text} is a trailer field line: a token, a colon, a value without control characters but HTAB. */
  static boolean isTrailer(String text) {
    int colon = text.indexOf(':');
    if (colon <= 0 || !HeadCheck.isToken(text.substring(0, colon))) {
      return false;
    }
    for (int k = colon + 1; k < text.length(); k++) {
      char c = text.charAt(k);
      if (c < 0x20 && c != '\t' || c == 0x7f) {
        return false;
      }
    }
    return true;
  }

  /** Whether a valid chunk-size line is hex digits alone (no extension, no whitespace). */
  static boolean plain(CharSequence line) {
    for (int i = 0; i < line.length(); i++) {
      if (Character.digit(line.charAt(i), 16) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Where the valid chunk extensions from {@code from} end: {@code *( BWS ";" BWS name [ BWS "="
   * BWS value ] )} then optional whitespace, a value being a token or a quoted string: the
   * length of {@code line} when all of it is valid, else -1.
   */
  private static int extensionsEnd(CharSequence line, int from) {
    int n = line.length();
    int i = whitespace(line, from);
    while (i < n) {
      if (line.charAt(i) != ';') {
        return -1;
      }
      int nameEnd = token(line, whitespace(line, i + 1));
      if (nameEnd < 0) {
        return -1;
      }
      i = whitespace(line, nameEnd);
      if (i < n && line.charAt(i) == '=') {
        int v = whitespace(line, i + 1);
        int valueEnd = v < n && line.charAt(v) == '"' ? quoted(line, v) : token(line, v);
        if (valueEnd < 0) {
          return -1;
        }
        i = whitespace(line, valueEnd);
      }
    }
    return i;
  }

  private static int whitespace(CharSequence line, int from) {
    int i = from;
    while (i < line.length() && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
      i++;
    }
    return i;
  }

  /** The end of a token starting at {@code from}, or -1 if none starts there. */
  private static int token(CharSequence line, int from) {
    int i = from;
    while (i < line.length() && HeadCheck.isTokenChar(line.charAt(i))) {
      i++;
    }
    return i == from ? -1 : i;
  }

  /** The end of a quoted string (RFC 9110 §5.6.4) whose opening quote is at {@code from}, or -1. */
  private static int quoted(CharSequence line, int from) {
    for (int i = from + 1; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '"') {
        return i + 1;
      }
      if (c == '\\') {
        i++;
        if (i == line.length() || !quotable(line.charAt(i))) {
          return -1;
        }
      } else if (!quotable(c) || c == '"') {
        return -1;
      }
    }
    return -1;
  }

  /** HTAB, SP, visible ASCII and obs-text: what a quoted string may hold. */
  private static boolean quotable(char c) {
    return c == '\t' || c >= 0x20 && c != 0x7f && c <= 0xff;
  }
}
