package dev.fairway.balancer;

import java.util.List;

/**
 * Picks the backend for the next request of one service.
 *
 * <p>Example: a {@link RoundRobin} over {@code [W1, W2]} picks W1, W2, W1, ... and skips any
 * endpoint that cannot {@link Endpoint#canTake() take} a request.
 *
 * <p>An instance is used by one thread at a time: each event loop (a lane of the slot table) picks
 * with its own instance, or the table's lock guards a shared one, unless the strategy says it is
 * {@link #sharedAcrossLanes() safe to share}. A pick only chooses; the slot table then takes the
 * slot atomically and picks again if another event loop took the last one first.
 *
 * <p>The member list is immutable and stays the same object until the members change (the slot
 * table then passes a new list and calls {@link #reset}); strategies may key per-member state on
 * the list's identity. Capacities and availability are read on every pick; weights may be cached
 * until the members' {@link WeightEpoch weight epoch} moves, so a weight change still shows on
 * the next pick; every member of one list shares that epoch (its slot table's).
 */
public interface Strategy {
  /**
   * Chooses among {@code members} (the service's subset, in a stable order) one that
   * {@link Endpoint#canTake() can take} a request now.
   *
   * @return the chosen endpoint, or {@code null} when none can take one
   */
  Endpoint pick(List<Endpoint> members, long nowNanos);

  /** A request picked on {@code endpoint} ended after {@code latencyNanos}, failed or not. */
  default void onComplete(Endpoint endpoint, long latencyNanos, boolean failed, long nowNanos) {
  }

  /**
   * As {@link #onComplete(Endpoint, long, boolean, long)}, knowing that {@code inFlight} requests
   * (this one included) were active on the backend when this one was granted.
   */
  default void onComplete(Endpoint endpoint, long latencyNanos, int inFlight, boolean failed, long nowNanos) {
    onComplete(endpoint, latencyNanos, failed, nowNanos);
  }

  /** A slot of {@code endpoint} became free (by this service or another sharing the backend). */
  default void onSlotFreed(Endpoint endpoint) {
  }

  /**
   * Whether one instance may serve every event loop at once (thread-safe {@link #pick}); if not,
   * each event loop gets an instance of its own.
   */
  default boolean sharedAcrossLanes() {
    return false;
  }

  /** The members, their capacities or their availability changed. */
  default void reset(List<Endpoint> members) {
  }
}
