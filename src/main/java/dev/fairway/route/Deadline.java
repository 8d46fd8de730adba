package dev.fairway.route;

import dev.fairway.grpc.GrpcTimeout;

/**
 * The moment by which a request must be done, on the {@code System.nanoTime()} clock: every wait
 * in Fairway (for a slot, for the response head) ends by then, and the backend is told what is
 * left of it.
 *
 * <p>Example: a request that arrived at t=0 with {@code grpc-timeout: 100m} has
 * {@code Deadline.of(0, "100m")} = {@code Deadline[atNanos=100000000, bounded=true]}; at t=30 ms
 * {@code remainingNanos} is 70,000,000, {@code bound(1_000_000_000, 30_000_000)} (a 1 s wait)
 * is 70,000,000, and {@code grpcTimeout(30_000_000)} is {@code "70000000n"}; at t=100 ms it has
 * {@link #passed}. {@link #NONE} bounds nothing.
 *
 * <p>Other sources of the same deadline (a milliseconds header, a per-service total) combine
 * with {@link #earlier}.
 *
 * @param atNanos when it passes (meaningless unless {@code bounded})
 * @param bounded whether there is a deadline at all
 */
public record Deadline(long atNanos, boolean bounded) {
  /** No deadline. */
  public static final Deadline NONE = new Deadline(0, false);
  /** Longer timeouts than this (about 73 years) are no deadline: {@code atNanos} must not overflow. */
  private static final long LONGEST_NANOS = Long.MAX_VALUE / 4;

  /** The deadline {@code timeoutNanos} after {@code startNanos}; {@link #NONE} if too far to matter. */
  public static Deadline after(long startNanos, long timeoutNanos) {
    return timeoutNanos > LONGEST_NANOS ? NONE : new Deadline(startNanos + Math.max(0, timeoutNanos), true);
  }

  /**
   * A request's deadline from its {@code grpc-timeout} header ({@code null}: none), counted from
   * its arrival at {@code startNanos}; {@code null} if the header is malformed.
   */
  public static Deadline of(long startNanos, CharSequence grpcTimeout) {
    if (grpcTimeout == null) {
      return NONE;
    }
    long nanos = GrpcTimeout.parse(grpcTimeout);
    return nanos == GrpcTimeout.MALFORMED ? null : after(startNanos, nanos);
  }

  /** The earlier of the two (a bounded one over {@link #NONE}). */
  public Deadline earlier(Deadline other) {
    if (!other.bounded) {
      return this;
    }
    return !bounded || other.atNanos - atNanos < 0 ? other : this;
  }

  /** Whether it has passed at {@code nowNanos} (never, unbounded). */
  public boolean passed(long nowNanos) {
    return bounded && nowNanos - atNanos >= 0;
  }

  /** What is left of it at {@code nowNanos}, at least 0; {@link Long#MAX_VALUE} unbounded. */
  public long remainingNanos(long nowNanos) {
    return bounded ? Math.max(0, atNanos - nowNanos) : Long.MAX_VALUE;
  }

  /** A wait of {@code waitNanos} from {@code nowNanos}, cut to end by the deadline. */
  public long bound(long waitNanos, long nowNanos) {
    return Math.min(waitNanos, remainingNanos(nowNanos));
  }

  /** Whether a wait of {@code waitNanos} from {@code nowNanos} is cut by the deadline (ends at it, not after its own length). */
  public boolean cuts(long waitNanos, long nowNanos) {
    return remainingNanos(nowNanos) < waitNanos;
  }

  /** What is left at {@code nowNanos}, as a {@code grpc-timeout} value for the backend; {@code null} unbounded. */
  public String grpcTimeout(long nowNanos) {
    return bounded ? GrpcTimeout.encode(remainingNanos(nowNanos)) : null;
  }
}
