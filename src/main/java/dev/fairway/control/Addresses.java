package dev.fairway.control;

/**
 * Event-bus addresses the verticles talk on.
 *
 * <p>Example: the balancer publishes each new snapshot to {@link #SNAPSHOT}; a proxy verticle that
 * starts late asks {@link #SNAPSHOT_GET} for the current one.
 */
public final class Addresses {
  /** Local publish of each new {@code BalancerSnapshot}. */
  public static final String SNAPSHOT = "fairway.snapshot";
  /** Request: reply with the current {@code BalancerSnapshot}. */
  public static final String SNAPSHOT_GET = "fairway.snapshot.get";
  /** Request: reply with the JSON array of {@code GET /api/services}. */
  public static final String SERVICES = "fairway.services";

  private Addresses() {
  }
}
