package dev.fairway.accesslog;

import java.time.Instant;

/**
 * One line of the access log: what was asked, who answered, how long each part took.
 *
 * <p>Example: {@code new AccessRecord(t, "127.0.0.1", "GET", "/x", "HTTP/1.1", "demo", "demo-1", 200,
 * 28, 2.1, 1.9, 0.0, "-", "curl/8.0").json()} is
 * {@code {"time":"2026-11-22T01:00:00Z","client":"127.0.0.1","method":"GET","path":"/x",
 * "service":"demo","backend":"demo-1","status":200,"bytes":28,"totalMs":2.1,"upstreamMs":1.9,
 * "slotWaitMs":0.0}}. When Fairway answered itself, {@code reason} says why, e.g.
 * {@code "reason":"TLS handshake with the backend failed: PKIX path building failed: ..."} (JSON) or
 * {@code reason="..."} (combined) at the end of the line.
 *
 * @param time       when the request arrived
 * @param client     the client's address
 * @param method     request method
 * @param path       request URI as sent
 * @param version    HTTP version, e.g. {@code HTTP/1.1}
 * @param service    the service it was routed to, or {@code -}
 * @param backend    the backend that answered, or {@code -}
 * @param status     status sent to the client (0 if the connection was aborted)
 * @param bytes      response body bytes sent to the client
 * @param totalMs    from arrival to the last byte
 * @param upstreamMs from taking the slot to the backend's last byte
 * @param slotWaitMs time spent waiting for a free slot
 * @param referer    the {@code Referer} header, or {@code -}
 * @param userAgent  the {@code User-Agent} header, or {@code -}
 * @param reason     why Fairway answered itself (its status's reason, with the cause of a failed
 *                   connection), or {@code null}: not written
 * @param requestId  the exchange's {@code X-Request-Id} ({@code "requestId"}, {@code request_id=}), or {@code null}: not written
 */
public record AccessRecord(Instant time, String client, String method, String path, String version, String service,
                           String backend, int status, long bytes, double totalMs, double upstreamMs,
                           double slotWaitMs, String referer, String userAgent, String reason, String requestId) {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** A record of a request that Fairway did not answer itself: no {@code reason}. */
  public AccessRecord(Instant time, String client, String method, String path, String version, String service,
                      String backend, int status, long bytes, double totalMs, double upstreamMs, double slotWaitMs,
                      String referer, String userAgent) {
    this(time, client, method, path, version, service, backend, status, bytes, totalMs, upstreamMs, slotWaitMs,
        referer, userAgent, null, null);
  }

  /** A record without a request id. */
  public AccessRecord(Instant time, String client, String method, String path, String version, String service,
                      String backend, int status, long bytes, double totalMs, double upstreamMs, double slotWaitMs,
                      String referer, String userAgent, String reason) {
    this(time, client, method, path, version, service, backend, status, bytes, totalMs, upstreamMs, slotWaitMs,
        referer, userAgent, reason, null);
  }

  /** One JSON object, strings escaped. */
  public String json() {
    StringBuilder out = new StringBuilder(256);
    appendJson(out, new AccessTime());
    return out.toString();
  }

  /** Apache's combined format, then Fairway's fields as {@code key=value}. */
  public String combined() {
    StringBuilder out = new StringBuilder(256);
    appendCombined(out, new AccessTime());
    return out.toString();
  }

  /** Appends {@link #json()}'s text, taking the time's text from {@code clock}. */
  void appendJson(StringBuilder out, AccessTime clock) {
    out.append("{\"time\":\"");
    clock.appendIso(out, time.toEpochMilli());
    out.append("\",\"client\":");
    quote(out, client);
    out.append(",\"method\":");
    quote(out, method);
    out.append(",\"path\":");
    quote(out, path);
    out.append(",\"service\":");
    quote(out, service);
    out.append(",\"backend\":");
    quote(out, backend);
    out.append(",\"status\":").append(status).append(",\"bytes\":").append(bytes).append(",\"totalMs\":");
    millis(out, totalMs);
    out.append(",\"upstreamMs\":");
    millis(out, upstreamMs);
    out.append(",\"slotWaitMs\":");
    millis(out, slotWaitMs);
    if (requestId != null) {
      out.append(",\"requestId\":");
      quote(out, requestId);
    }
    if (reason != null) {
      out.append(",\"reason\":");
      quote(out, reason);
    }
    out.append('}');
  }

  /** Appends {@link #combined()}'s text, taking the time's text from {@code clock}. */
  void appendCombined(StringBuilder out, AccessTime clock) {
    out.append(client).append(" - - [");
    clock.appendClf(out, time.toEpochMilli());
    out.append("] \"");
    clean(out, method);
    out.append(' ');
    clean(out, path);
    out.append(' ').append(version).append("\" ").append(status).append(' ').append(bytes).append(" \"");
    clean(out, referer);
    out.append("\" \"");
    clean(out, userAgent);
    out.append("\" service=").append(service).append(" backend=").append(backend).append(" total_ms=");
    millis(out, totalMs);
    out.append(" upstream_ms=");
    millis(out, upstreamMs);
    out.append(" wait_ms=");
    millis(out, slotWaitMs);
    if (requestId != null) {
      out.append(" request_id=");
      clean(out, requestId);
    }
    if (reason != null) {
      out.append(" reason=\"");
      clean(out, reason);
      out.append('"');
    }
  }

  /** Milliseconds rounded to the microsecond, as {@code Double.toString} writes such a value: 2.1, 2.123, 0.0. */
  private static void millis(StringBuilder out, double ms) {
    long micros = Math.round(ms * 1000);
    if (micros < 0) {
      out.append('-');
      micros = -micros;
    }
    int frac = (int) (micros % 1000);
    out.append(micros / 1000).append('.').append((char) ('0' + frac / 100));
    if (frac % 100 != 0) {
      out.append((char) ('0' + frac / 10 % 10));
      if (frac % 10 != 0) {
        out.append((char) ('0' + frac % 10));
      }
    }
  }

  /** The text between double quotes with backslash and quote escaped and control characters as {@code ?}. */
  private static void clean(StringBuilder out, String s) {
    if (s == null) {
      out.append('-');
      return;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' || c == '"') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c == 0x7f) {
        out.append('?');
      } else {
        out.append(c);
      }
    }
  }

  private static void quote(StringBuilder out, String s) {
    if (s == null) {
      out.append("null");
      return;
    }
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c == 0x7f) {
        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }
}
