package dev.fairway.config;

/**
 * How this process behaves as a cluster member (the top-level {@code cluster} object; used only
 * with {@code -cluster}).
 *
 * <p>Example: {@code {"nodeName": "edge-a", "shareCapacity": true, "leaseIntervalMs": 250,
 * "reclaimMs": 30000}}: this member claims the subsetting client id kept for {@code edge-a} (the
 * same id after a restart within 30 s), and each backend's {@code capacity} is the whole cluster's,
 * shared out among the members by recent demand every 250 ms.
 *
 * @param nodeName        this member's stable name; {@code ""} derives one from the host name and
 *                        proxy port, so a restart on the same machine and port keeps its identity
 * @param shareCapacity   whether a backend's {@code capacity} is the cluster's total (leased out
 *                        to the members) rather than each member's own
 * @param leaseIntervalMs how often a member reports its demand and renews its capacity shares
 * @param reclaimMs       how long a departed member's client id stays reserved for its node name
 *                        (0: ids are compacted as soon as a member leaves)
 */
public record ClusterSettings(String nodeName, boolean shareCapacity, long leaseIntervalMs, long reclaimMs) {
  /** A derived node name, shared capacity, leases renewed every 250 ms, ids reserved for 30 s. */
  public static final ClusterSettings DEFAULTS = new ClusterSettings("", true, 250, 30_000);

  /** Settings with the default reclaim grace of 30 s. */
  public ClusterSettings(String nodeName, boolean shareCapacity, long leaseIntervalMs) {
    this(nodeName, shareCapacity, leaseIntervalMs, 30_000);
  }
}
