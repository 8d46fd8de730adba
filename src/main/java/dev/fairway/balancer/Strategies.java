package dev.fairway.balancer;

import dev.fairway.config.StrategyName;

/**
 * Creates a fresh strategy instance for a service.
 *
 * <p>Example: {@code Strategies.create(StrategyName.SLOT_QUEUE, seed)} returns a new
 * {@link SlotQueue}; each service owns its own instance.
 */
public final class Strategies {
  private Strategies() {
  }

  /**
   * @param name which strategy
   * @param seed seed for strategies that choose at random, so runs can be repeated
   */
  public static Strategy create(StrategyName name, long seed) {
    return switch (name) {
      case ROUND_ROBIN -> new RoundRobin();
      case SLOT_QUEUE -> new SlotQueue();
      case LEAST_LOADED -> new LeastLoaded();
      case WEIGHTED_ROUND_ROBIN -> new WeightedRoundRobin();
      case FAIR_SHARE -> new FairShare();
      case INTERLEAVED_WEIGHTED_ROUND_ROBIN -> new InterleavedWeightedRoundRobin();
      case P2C_PEAK_EWMA -> new P2cPeakEwma(seed);
    };
  }
}
