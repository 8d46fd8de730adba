package dev.fairway.config;

/**
 * Upstream timeouts of a service.
 *
 * <p>Example: {@code {"connectMs": 2000, "responseMs": 30000}}: a backend that does not accept
 * within 2 s is skipped (503 when none is left); one that sends no response headers within 30 s
 * after the request was sent gives 504.
 *
 * @param connectMs  TCP connect timeout
 * @param responseMs longest wait for response headers once the request is sent
 * @param uploadIdleMs longest time a backend may stop reading a request body being streamed to
 *                     it (before {@code responseMs} starts); then 504 and the slot is freed
 * @param slowClientMs how long a client may hold back the response it is sent (its connection
 *                     full, the backend's reads paused) before the backend's slot is handed back
 *                     while the response goes on; -1 never
 * @param totalMs      the longest a request may take in Fairway, slot wait included: caps the
 *                     deadline a client gives; 0 none
 */
public record Timeouts(long connectMs, long responseMs, long uploadIdleMs, long slowClientMs, long totalMs) {
  /** Default upload idle timeout. */
  public static final long DEFAULT_UPLOAD_IDLE_MS = 30_000;
  /** Default slow-client time. */
  public static final long DEFAULT_SLOW_CLIENT_MS = 1_000;

  /** Timeouts with the default {@code uploadIdleMs} and {@code slowClientMs}, and no {@code totalMs}. */
  public Timeouts(long connectMs, long responseMs) {
    this(connectMs, responseMs, DEFAULT_UPLOAD_IDLE_MS, DEFAULT_SLOW_CLIENT_MS);
  }

  /** Timeouts without {@code totalMs}. */
  public Timeouts(long connectMs, long responseMs, long uploadIdleMs, long slowClientMs) {
    this(connectMs, responseMs, uploadIdleMs, slowClientMs, 0);
  }
}
