package dev.fairway.config;

import dev.fairway.overload.Criticality;

/**
 * A service's overload policy: the criticality of requests that name none, its retries and its
 * adaptive throttling (service keys {@code defaultCriticality}, {@code retry}, {@code throttle}).
 *
 * <p>Example: {@link #DEFAULTS}: unmarked requests are {@code critical}, only requests no backend
 * acted on are retried (once, within a 10 % budget), throttling is on with {@code k} 2.
 *
 * @param defaultCriticality criticality of a request without a valid criticality header
 * @param retry              what is retried, and within what budget
 * @param throttle           adaptive throttling
 */
public record ServiceOverload(Criticality defaultCriticality, RetrySettings retry, ThrottleSettings throttle) {
  /** The defaults of every part. */
  public static final ServiceOverload DEFAULTS = new ServiceOverload(Criticality.CRITICAL, RetrySettings.DEFAULTS,
      ThrottleSettings.DEFAULTS);
}
