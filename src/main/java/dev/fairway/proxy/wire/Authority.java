package dev.fairway.proxy.wire;

/**
 * The syntax of a {@code Host} value or of the authority of an absolute-form request target
 * (RFC 9112 §3.2, RFC 3986 §3.2.2): a host (a reg-name, an IPv4 address or a bracketed IP
 * literal), optionally {@code :port}, nothing else. Pure: no I/O.
 *
 * <p>Example: {@code shop.example}, {@code 10.0.0.1:8080}, {@code [::1]:443} and the empty value are
 * valid; {@code user:pw@evil.example} (userinfo), {@code a b}, {@code a,b}, {@code a/b},
 * {@code a:80x} and {@code [zz]} are not.
 */
public final class Authority {
  private Authority() {
  }

  /** Whether {@code h[from, end)} is a valid authority. */
  public static boolean valid(byte[] h, int from, int end) {
    int hostEnd = end;
    if (from < end && h[from] == '[') {
      int close = from + 1;
      while (close < end && h[close] != ']') {
        if (!isHexColonDot(h[close])) {
          return false;
        }
        close++;
      }
      if (close == end || close == from + 1) {
        return false;
      }
      hostEnd = close + 1;
    } else {
      for (int p = from; p < end; p++) {
        if (h[p] == ':') {
          hostEnd = p;
          break;
        }
        if (!isRegNameChar(h[p])) {
          return false;
        }
      }
    }
    if (hostEnd == end) {
      return true;
    }
    if (h[hostEnd] != ':' || end - hostEnd - 1 > 5) {
      return false;
    }
    for (int p = hostEnd + 1; p < end; p++) {
      if (h[p] < '0' || h[p] > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether an absolute-form request target ({@code http://shop/a}) starting at {@code h[t]}
   * names the same authority as {@code Host} ({@code h[hostFrom, hostEnd)}), in any case and
   * without userinfo (RFC 9112 §3.2.2: a backend reading the target and one reading {@code Host}
   * must not be told different hosts). Origin-form, {@code *} and authority-form targets match by
   * definition (Fairway routes them by {@code Host}); so does any target without {@code Host}
   * (HTTP/1.0), once its authority is valid.
   */
  static boolean targetMatchesHost(byte[] h, int t, boolean hasHost, int hostFrom, int hostEnd) {
    int targetEnd = t;
    while (h[targetEnd] != ' ') {
      targetEnd++;
    }
    if (h[t] == '/' || h[t] == '*') {
      return true;
    }
    int scheme = t;
    while (scheme < targetEnd && isSchemeChar(h[scheme])) {
      scheme++;
    }
    if (scheme == t || scheme + 3 > targetEnd || h[scheme] != ':' || h[scheme + 1] != '/' || h[scheme + 2] != '/') {
      return true;
    }
    int from = scheme + 3;
    int end = from;
    while (end < targetEnd && h[end] != '/' && h[end] != '?' && h[end] != '#') {
      end++;
    }
    if (!valid(h, from, end)) {
      return false;
    }
    if (!hasHost) {
      return true;
    }
    if (end - from != hostEnd - hostFrom) {
      return false;
    }
    for (int p = from; p < end; p++) {
      if ((h[p] | 0x20) != (h[hostFrom + p - from] | 0x20)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isSchemeChar(byte b) {
    return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '+' || b == '-' || b == '.';
  }

  /**
   * Unreserved, percent-encoding and sub-delims but the comma (a list, never one host), as a
   * reg-name or an IPv4 address may hold.
   */
  private static boolean isRegNameChar(byte b) {
    return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || "-._~%!$&'()*+;=".indexOf(b) >= 0;
  }

  private static boolean isHexColonDot(byte b) {
    return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' || b == ':' || b == '.';
  }
}
