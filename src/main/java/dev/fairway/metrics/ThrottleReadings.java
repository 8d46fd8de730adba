package dev.fairway.metrics;

/**
 * What a service's adaptive throttles counted over their window, summed over the event loops.
 *
 * <p>Example: backends that accepted 40 of a service's last 100 requests read
 * {@code requests("api")} 100, {@code accepts("api")} 40 and, with {@code k} 2,
 * {@code rejectProbability("api")} 0.198.
 */
public interface ThrottleReadings {
  /** Requests counted in the window, those refused locally included. */
  long requests(String service);

  /** Requests in the window that got an answer other than an overload signal. */
  long accepts(String service);

  /** The probability that a new request is refused locally: {@code max(0, (requests - k * accepts) / (requests + 1))}. */
  double rejectProbability(String service);
}
