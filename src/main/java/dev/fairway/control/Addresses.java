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
  /** The header of a command's reply on {@link #COMMANDS} that carries the HTTP status for the admin caller. */
  public static final String STATUS_HEADER = "status";
  /** Request: reply with the current {@code BalancerSnapshot}. */
  public static final String SNAPSHOT_GET = "fairway.snapshot.get";
  /** Send: a proxy verticle's {@code ObservationBatch} of the last period. */
  public static final String OBSERVATIONS = "fairway.observations";
  /** Send: a backend id that answered with {@code Lame-Duck: true}. */
  public static final String LAME_DUCK_SIGNAL = "fairway.lame-duck-signal";
  /** Request: an admin command (JSON with {@code op}); reply with JSON or fail with a status. */
  public static final String COMMANDS = "fairway.commands";
  /**
   * Cluster-wide publish: the runtime changes an admin command made on one member, or a
   * {@code Lame-Duck: true} it saw, for every other member's balancer (header {@code origin}
   * names the sender, which skips its own; {@code sentAt} in the body times the delivery).
   */
  public static final String CLUSTER_COMMANDS = "fairway.cluster.commands";
  /**
   * Local send: this member's cluster position changed, JSON {@code {clientId, clientCount,
   * nodeId, members, reason}}.
   */
  public static final String MEMBERSHIP = "fairway.membership";
  /** Local send: a JSON array of runtime changes for the cluster recorder to keep. */
  public static final String RUNTIME_RECORD = "fairway.cluster.record";
  /**
   * Local request: the JSON array of runtime changes recorded in the cluster, for the balancer to
   * apply; it replies with the counts applied by kind.
   */
  public static final String CLUSTER_REPLAY = "fairway.cluster.replay";
  /** Request: reply with the JSON array of {@code GET /api/services}. */
  public static final String SERVICES = "fairway.services";

  private Addresses() {
  }
}
