package dev.fairway.config;

/**
 * A service's adaptive throttling (its {@code throttle} object; the SRE book's client-side
 * throttling): over the last {@code windowMs}, {@code requests} counts every request for the
 * service and {@code accepts} those its backends did not answer with an overload signal (503, 429,
 * {@code grpc-status} 8 or 14); a new request is refused locally with probability
 * {@code max(0, (requests - k * accepts) / (requests + 1))}, the least critical first. Requests
 * refused locally weigh less once the backends accept more than {@code 1 / k} of what reaches
 * them, so that a healed backend gets all traffic back within a window (see
 * {@link dev.fairway.overload.AdaptiveThrottle}).
 *
 * <p>Example: the defaults {@code {"enabled": true, "k": 2, "windowMs": 120000}}: backends that
 * accept half of what they get see no throttling; backends that accept a quarter get about twice
 * what they accept, the rest refused in Fairway without a round trip.
 *
 * @param enabled  whether the service throttles at all
 * @param k        how many requests per accept the backends may see
 * @param windowMs how far back requests and accepts are counted
 * @param minRequests fewer answered or refused requests than this in the window never throttle:
 *                    one 503 to a quiet service would otherwise refuse its next request with
 *                    probability 1/2
 */
public record ThrottleSettings(boolean enabled, double k, long windowMs, int minRequests) {
  /** On, {@code k} 2, a two-minute window, throttling from 10 requests in it. */
  public static final ThrottleSettings DEFAULTS = new ThrottleSettings(true, 2, 120_000, 10);
}
