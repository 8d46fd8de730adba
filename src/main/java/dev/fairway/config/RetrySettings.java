package dev.fairway.config;

import java.util.Set;

/**
 * When a request that failed on one backend is sent again to another (a service's {@code retry}
 * object), and how many retries the service may add to its backends' load.
 *
 * <p>Example: the defaults, {@code {"on": ["connect-failure", "refused-stream"], "maxAttempts": 2,
 * "budgetPercent": 10, "minRetriesPerSecond": 3}}: a request whose connection could not be made (or
 * whose pooled connection the backend had closed) or whose HTTP/2 stream was refused is tried once
 * more on another backend, as long as retries stay within 10 % of the service's requests over the
 * last 10 s plus 3 a second. With {@code "on": [..., "503"]} a backend's 503 is retried too, with
 * the request's body if it was kept, unless the whole service is full (then the 503 is passed on).
 *
 * @param on                  what is retried
 * @param methods             which methods are retried after the backend may have acted on them
 *                            ({@code reset} and statuses); upper case
 * @param maxAttempts         tries in all, the first included (1: never retry)
 * @param perTryTimeoutMs     how long each try waits for response headers; 0: {@code timeouts.responseMs}
 * @param budgetPercent       retries allowed as a percentage of the service's requests in the window
 * @param minRetriesPerSecond retries allowed whatever the percentage (so a quiet service can retry)
 */
public record RetrySettings(Set<RetryOn> on, Set<String> methods, int maxAttempts, long perTryTimeoutMs,
                            double budgetPercent, double minRetriesPerSecond) {
  /** Methods that are safe to repeat (RFC 9110 §9.2.2). */
  public static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE");
  /** What Fairway retried before {@code retry} existed: requests no backend has acted on. */
  public static final RetrySettings DEFAULTS = new RetrySettings(Set.of(RetryOn.CONNECT_FAILURE, RetryOn.REFUSED_STREAM),
      IDEMPOTENT, 2, 0, 10, 3);

  public RetrySettings {
    on = Set.copyOf(on);
    methods = Set.copyOf(methods);
  }

  /** Whether a backend's answer with {@code status} is retried. */
  public boolean onStatus(int status) {
    return switch (status) {
      case 502 -> on.contains(RetryOn.STATUS_502);
      case 503 -> on.contains(RetryOn.STATUS_503);
      case 504 -> on.contains(RetryOn.STATUS_504);
      default -> false;
    };
  }

  /** Why a try failed, as named in {@code retry.on}. */
  public enum RetryOn {
    /** The connection could not be made, or a pooled one was found closed before any answer. */
    CONNECT_FAILURE("connect-failure"),
    /** The connection closed or was reset after the request went out, before the response head. */
    RESET("reset"),
    /** An HTTP/2 backend refused the stream or left it above its GOAWAY's last stream id. */
    REFUSED_STREAM("refused-stream"),
    /** The backend answered 502 (or sent no valid response head). */
    STATUS_502("502"),
    /** The backend answered 503. */
    STATUS_503("503"),
    /** The backend answered 504, or sent no response head within the try's timeout. */
    STATUS_504("504");

    private final String configName;

    RetryOn(String configName) {
      this.configName = configName;
    }

    public String configName() {
      return configName;
    }
  }
}
