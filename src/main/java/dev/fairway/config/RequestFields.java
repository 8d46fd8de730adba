package dev.fairway.config;

/**
 * A request's fields as a match rule reads them.
 *
 * <p>Example: for a request with {@code X-Canary: yes}, {@code field("x-canary")} is {@code "yes"}
 * and {@code field("x-other")} is {@code null}. The proxy's requests are their own
 * {@code RequestFields}, so routing a request allocates no adapter.
 */
@FunctionalInterface
public interface RequestFields {
  /** The first value of the field {@code lowerName}, or {@code null}. */
  String field(String lowerName);
}
