package dev.fairway.config;

/**
 * What the client-facing listener accepts from clients: sizes, counts and times of request heads,
 * idle and total connections, and how far client-supplied forwarding headers are trusted.
 *
 * <p>Example: with the defaults a request line of 9,000 bytes gets 414, a head of 101 fields or
 * over 32 KiB gets 431, a head still incomplete after 10 s gets 408, a connection silent for 60 s
 * is closed, the 10,001st open connection is refused with 503, a field named {@code x_user} is
 * dropped, a client's {@code X-Forwarded-For} is replaced by the client's own address, and an h2c
 * client may have 100 streams open on one connection.
 *
 * @param maxHeaderBytes          most bytes of a request's field lines (431 beyond)
 * @param maxHeaderCount          most field lines in a request head (431 beyond)
 * @param maxRequestLineBytes     most bytes of a request line (414 beyond)
 * @param requestHeadersTimeoutMs longest time from a head's first byte (or the connection's
 *                                start) to its blank line (408 and close beyond)
 * @param idleTimeoutMs           a client connection with no traffic this long is closed
 * @param maxConnections          most open client connections of the process; more are refused
 * @param underscoreHeaders       {@code drop} or {@code reject} (400) fields with {@code _} in the name
 * @param trustedHops             proxies in front of Fairway whose {@code X-Forwarded-*} are kept
 * @param h2MaxConcurrentStreams  most concurrent streams of an HTTP/2 (h2c) client connection;
 *                                0 turns HTTP/2 from clients off
 */
public record EdgeLimits(int maxHeaderBytes, int maxHeaderCount, int maxRequestLineBytes,
                         long requestHeadersTimeoutMs, long idleTimeoutMs, int maxConnections,
                         UnderscoreHeaders underscoreHeaders, int trustedHops, int h2MaxConcurrentStreams) {
  /** The limits when the config says nothing. */
  public static final EdgeLimits DEFAULTS =
      new EdgeLimits(32 * 1024, 100, 8 * 1024, 10_000, 60_000, 10_000, UnderscoreHeaders.DROP, 0, 100);

  /** What to do with a request field whose name contains an underscore. */
  public enum UnderscoreHeaders {
    DROP, REJECT;

    public String configName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }
}
