package dev.fairway.balancer;

/**
 * How a request to a backend ended, as the balancing and ejection policies tell failures apart.
 *
 * <p>Example: {@code Outcome.of(200, false)} is {@link #SUCCESS}; {@code of(500, false)}
 * {@link #SERVER_ERROR}; {@code of(502, false)} {@link #GATEWAY_FAILURE}; a connect failure
 * {@link #NO_ANSWER}; {@code of(503, true)}, a backend's own 503 with {@code Retry-After},
 * {@link #OVERLOADED}: it sheds load and is not broken, so it counts as load but not toward
 * ejection.
 */
public enum Outcome {
  /** An answer below 500. */
  SUCCESS,
  /** A 5xx answer other than 502, 503 or 504. */
  SERVER_ERROR,
  /** A 502, 503 (without {@code Retry-After}) or 504 answer. */
  GATEWAY_FAILURE,
  /**
   * No connection, or no valid answer in time: a gateway failure for ejection, but not a 5xx
   * answer of the backend's.
   */
  NO_ANSWER,
  /** A 503 with {@code Retry-After}: the backend says it is overloaded. */
  OVERLOADED,
  /**
   * The client left before the backend's answer began: neither a success nor a failure of the
   * backend's, so it changes no failure streak and counts as no error.
   */
  ABANDONED;

  /** The outcome of an answer with {@code status}; {@code retryAfter}: it carried {@code Retry-After}. */
  public static Outcome of(int status, boolean retryAfter) {
    if (status < 500) {
      return SUCCESS;
    }
    return switch (status) {
      case 502, 504 -> GATEWAY_FAILURE;
      case 503 -> retryAfter ? OVERLOADED : GATEWAY_FAILURE;
      default -> SERVER_ERROR;
    };
  }

  /** Anything but {@link #SUCCESS} or {@link #ABANDONED}: strategies count it as an error. */
  public boolean failed() {
    return this != SUCCESS && this != ABANDONED;
  }
}
