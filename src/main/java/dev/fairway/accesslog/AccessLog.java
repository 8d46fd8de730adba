package dev.fairway.accesslog;

import dev.fairway.config.AccessLogSettings;
import java.time.Instant;

/**
 * Formats one access-log line per request and hands it to the {@link AccessLogWriter}, which logs
 * it to the SLF4J logger {@code fairway.access} off the event loop and never blocks. One per proxy
 * verticle, called only on its event loop: it reuses its text buffer and the time's text from line
 * to line.
 *
 * <p>Example: with {@code accessLog.format} {@code combined} a request reads
 * {@code 127.0.0.1 - - [22/Nov/2026:01:00:00 +0000] "GET / HTTP/1.1" 200 28 "-" "curl/8.0"
 * service=demo backend=demo-1 total_ms=2.1 upstream_ms=1.9 wait_ms=0.0}.
 */
public final class AccessLog {
  private final boolean json;
  private final AccessLogWriter writer;
  private final StringBuilder line = new StringBuilder(320);
  private final AccessTime clock = new AccessTime();

  private AccessLog(boolean json, AccessLogWriter writer) {
    this.json = json;
    this.writer = writer;
  }

  /** The log for these settings, or {@code null} when it is off. */
  public static AccessLog of(AccessLogSettings settings) {
    return settings.enabled() ? new AccessLog("json".equals(settings.format()), AccessLogWriter.shared()) : null;
  }

  /** Whether lines carry the {@code Referer} and {@code User-Agent} fields (the {@code combined} format). */
  public boolean wantsAgent() {
    return !json;
  }

  /**
   * @param method     the request's method, target and HTTP version, as the client sent them
   * @param referer    the {@code Referer} field, or {@code null} (always, unless {@link #wantsAgent()})
   * @param userAgent  the {@code User-Agent} field, or {@code null}
   * @param remote     the client's address
   * @param bytes      body bytes sent to the client
   * @param startNanos when the request arrived ({@code System.nanoTime()})
   * @param slotNanos  when the backend's slot was taken, or 0
   * @param waitNanos  time spent waiting for a slot
   * @param now        {@code System.nanoTime()} when the exchange ended
   * @param reason     why Fairway answered itself, or {@code null}
   * @param requestId  the exchange's {@code X-Request-Id}, or {@code null}
   */
  public void log(String method, String uri, String version, String referer, String userAgent, String remote, String service,
           String backend, int status, long bytes, long startNanos, long slotNanos, long waitNanos, long now,
           String reason, String requestId) {
    Instant arrived = Instant.ofEpochMilli(System.currentTimeMillis() - (now - startNanos) / 1_000_000);
    AccessRecord r = new AccessRecord(arrived, remote, method, uri, version, service, backend, status, bytes,
        (now - startNanos) / 1e6, slotNanos == 0 ? 0 : (now - slotNanos) / 1e6, waitNanos / 1e6, referer, userAgent,
        reason, requestId);
    line.setLength(0);
    if (json) {
      r.appendJson(line, clock);
    } else {
      r.appendCombined(line, clock);
    }
    writer.offer(line.toString());
  }
}
