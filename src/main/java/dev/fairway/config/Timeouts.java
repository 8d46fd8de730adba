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
 */
public record Timeouts(long connectMs, long responseMs) {
}
