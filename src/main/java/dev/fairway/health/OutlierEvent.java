package dev.fairway.health;

/**
 * A backend was ejected, or its ejection ended.
 *
 * <p>Example: the fifth failure in a row at t = 0 gives {@code OutlierEvent[backendId=b1,
 * ejected=true, atNanos=30000000000, reason=5 consecutive failures, last: HTTP 503; ejected for
 * 30 s (ejection 1)]}; feed it to {@link BackendStatus#eject(String)}.
 *
 * @param backendId the backend
 * @param ejected   true when the ejection begins, false when it ends
 * @param atNanos   when the ejection ends (for both kinds), on the caller's clock
 * @param reason    one line for logs and the dashboard
 */
public record OutlierEvent(String backendId, boolean ejected, long atNanos, String reason) {
}
