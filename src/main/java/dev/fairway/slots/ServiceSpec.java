package dev.fairway.slots;

import dev.fairway.config.BalancingSettings;
import dev.fairway.config.OutlierSettings;
import dev.fairway.config.StrategyName;
import java.util.List;

/**
 * What the balancer wants a service to be in the slot table.
 *
 * <p>Example: {@code new ServiceSpec("api", StrategyName.SLOT_QUEUE, 10000, 0, List.of("b1",
 * "b2"))}: slot-queue over b1 and b2, up to 10,000 waiters, no service-wide cap.
 *
 * @param name       service name
 * @param strategy   its strategy
 * @param maxWaiting most waiters at once
 * @param maxActive  most requests in flight for the service; 0 means no cap
 * @param memberIds  the ids of its subset, in a stable order
 * @param balancing  tuning of its strategy
 * @param outliers   failure streaks that hold a backend back locally, and the failure penalty
 * @param slowStart  how a backend that joins or returns ramps up
 */
public record ServiceSpec(String name, StrategyName strategy, int maxWaiting, int maxActive,
                          List<String> memberIds, BalancingSettings balancing, OutlierSettings outliers,
                          SlowStart slowStart) {
  public ServiceSpec {
    memberIds = List.copyOf(memberIds);
  }

  /** A spec with the default tuning, outlier settings and no slow start. */
  public ServiceSpec(String name, StrategyName strategy, int maxWaiting, int maxActive, List<String> memberIds) {
    this(name, strategy, maxWaiting, maxActive, memberIds, BalancingSettings.DEFAULTS);
  }

  /** A spec with the default outlier settings and no slow start. */
  public ServiceSpec(String name, StrategyName strategy, int maxWaiting, int maxActive, List<String> memberIds,
                     BalancingSettings balancing) {
    this(name, strategy, maxWaiting, maxActive, memberIds, balancing, OutlierSettings.DEFAULTS, SlowStart.OFF);
  }
}
