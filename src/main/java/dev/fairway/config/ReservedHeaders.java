package dev.fairway.config;

import java.util.Locale;
import java.util.Set;

/**
 * The header fields no configuration may claim: hop-by-hop fields (RFC 9110 §7.6.1), the framing
 * and routing fields ({@code Host}, {@code Content-Length}, {@code Expect}), and the fields
 * Fairway sets or reads itself. One list, for the overload headers and the header rules alike.
 *
 * <p>Example: {@code isReserved("X-Forwarded-For")}, {@code isReserved("Proxy-Status")} and
 * {@code isReserved("x-fairway-attempt")} are true; {@code isReserved("X-Env")} is false.
 */
final class ReservedHeaders {
  /** What a configured header name must be, for problem messages. */
  static final String EXPECTED = "a header name made of token characters (RFC 9110 §5.6.2), with no "
      + "underscore, not hop-by-hop and not one Fairway sets or reads itself (Host, Via, Forwarded, X-Forwarded-*, "
      + "X-Request-Id, X-Fairway-*, grpc-timeout, traceparent, tracestate, ...)";
  private static final Set<String> NAMES = Set.of("connection", "keep-alive", "te", "trailer", "transfer-encoding",
      "upgrade", "host", "expect", "content-length", "via", "forwarded", "x-request-id", "lame-duck",
      "endpoint-load-metrics", "endpoint-load-metrics-bin", "grpc-timeout", "traceparent", "tracestate");
  private static final String[] PREFIXES = {"proxy-", "x-forwarded-", "x-fairway-"};

  private ReservedHeaders() {
  }

  /** Whether {@code name} (any case) is hop-by-hop or Fairway's own. */
  static boolean isReserved(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (NAMES.contains(lower)) {
      return true;
    }
    for (String p : PREFIXES) {
      if (lower.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code name} may be configured: a token without underscore that is not reserved. */
  static boolean isAllowed(String name) {
    return OverloadParser.isToken(name) && name.indexOf('_') < 0 && !isReserved(name);
  }
}
