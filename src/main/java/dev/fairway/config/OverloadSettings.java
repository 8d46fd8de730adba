package dev.fairway.config;

/**
 * Which request headers carry criticality and deadlines (the top-level {@code overload} object).
 *
 * <p>Example: the defaults: {@code X-Criticality: sheddable} marks a request that may be shed
 * first, and {@code X-Request-Timeout-Ms: 250} gives it 250 ms from its arrival; both are
 * forwarded, the deadline reduced by the time spent in Fairway.
 *
 * @param criticalityHeader the header naming a request's criticality
 * @param deadlineHeader    the header giving a request's remaining time in milliseconds
 */
public record OverloadSettings(String criticalityHeader, String deadlineHeader) {
  /** {@code X-Criticality} and {@code X-Request-Timeout-Ms}. */
  public static final OverloadSettings DEFAULTS = new OverloadSettings("X-Criticality", "X-Request-Timeout-Ms");
}
