package dev.fairway.proxy.wire;

/**
 * The cause Fairway attaches to a message it refuses, carrying the {@link Failure} to answer with;
 * it has no stack trace (rejections happen on the hot path).
 *
 * <p>Example: a request head with obs-fold becomes a stand-in request whose decoder result fails
 * with {@code new Rejection(Failure.MALFORMED_REQUEST)}; {@link Failure#of} maps it back to 400.
 */
public final class Rejection extends RuntimeException {
  private final Failure failure;

  public Rejection(Failure failure) {
    super(failure.reason(), null, false, false);
    this.failure = failure;
  }

  Failure failure() {
    return failure;
  }
}
