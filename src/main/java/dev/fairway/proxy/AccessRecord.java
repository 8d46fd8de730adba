package dev.fairway.proxy;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * One line of the access log: what was asked, who answered, how long each part took.
 *
 * <p>Example: {@code new AccessRecord(t, "127.0.0.1", "GET", "/x", "HTTP/1.1", "demo", "demo-1", 200,
 * 28, 2.1, 1.9, 0.0, "-", "curl/8.0").json()} is
 * {@code {"time":"2026-11-22T01:00:00Z","client":"127.0.0.1","method":"GET","path":"/x",
 * "service":"demo","backend":"demo-1","status":200,"bytes":28,"totalMs":2.1,"upstreamMs":1.9,
 * "slotWaitMs":0.0}}.
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
 */
public record AccessRecord(Instant time, String client, String method, String path, String version, String service,
                           String backend, int status, long bytes, double totalMs, double upstreamMs,
                           double slotWaitMs, String referer, String userAgent) {
  private static final DateTimeFormatter CLF = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT)
      .withZone(ZoneOffset.UTC);

  /** One JSON object, strings escaped. */
  public String json() {
    return "{\"time\":\"" + time + "\",\"client\":" + quote(client) + ",\"method\":" + quote(method)
        + ",\"path\":" + quote(path) + ",\"service\":" + quote(service) + ",\"backend\":" + quote(backend)
        + ",\"status\":" + status + ",\"bytes\":" + bytes + ",\"totalMs\":" + round(totalMs)
        + ",\"upstreamMs\":" + round(upstreamMs) + ",\"slotWaitMs\":" + round(slotWaitMs) + "}";
  }

  /** Apache's combined format, then Fairway's fields as {@code key=value}. */
  public String combined() {
    return client + " - - [" + CLF.format(time) + "] \"" + clean(method) + " " + clean(path) + " " + version + "\" "
        + status + " " + bytes + " \"" + clean(referer) + "\" \"" + clean(userAgent) + "\" service=" + service
        + " backend=" + backend + " total_ms=" + round(totalMs) + " upstream_ms=" + round(upstreamMs)
        + " wait_ms=" + round(slotWaitMs);
  }

  private static double round(double ms) {
    return Math.round(ms * 1000) / 1000.0;
  }

  private static String clean(String s) {
    return s == null ? "-" : s.replace("\\", "\\\\").replace("\"", "\\\"").replaceAll("[\\x00-\\x1f\\x7f]", "?");
  }

  private static String quote(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
