package dev.fairway.balancer;

import dev.fairway.config.BalancingSettings;
import dev.fairway.config.StrategyName;

/**
 * Creates a fresh strategy instance for a service.
 *
 * <p>Example: {@code Strategies.create(StrategyName.SLOT_QUEUE, seed)} returns a new
 * {@link SlotQueue}; each service owns its own instance.
 */
public final class Strategies {
  private static final long MS = 1_000_000L;

  private Strategies() {
  }

  /**
   * @param name which strategy
   * @param seed seed for strategies that choose at random, so runs can be repeated
   */
  public static Strategy create(StrategyName name, long seed) {
    return create(name, seed, BalancingSettings.DEFAULTS);
  }

  /**
   * @param name     which strategy
   * @param seed     seed for strategies that choose at random, so runs can be repeated
   * @param settings the service's tuning
   */
  public static Strategy create(StrategyName name, long seed, BalancingSettings settings) {
    return switch (name) {
      case ROUND_ROBIN -> new RoundRobin();
      case SLOT_QUEUE -> new SlotQueue();
      case LEAST_LOADED -> new LeastLoaded(settings.errorWindowMs() * MS);
      case WEIGHTED_ROUND_ROBIN -> new WeightedRoundRobin();
      case FAIR_SHARE -> new FairShare(settings.fairShareWindow(), settings.fairShareMedian(),
          FairShare.DEFAULT_INITIAL_LATENCY_NANOS);
      case INTERLEAVED_WEIGHTED_ROUND_ROBIN -> new InterleavedWeightedRoundRobin();
      case P2C_PEAK_EWMA -> new P2cPeakEwma(seed, settings.ewmaDecayMs() * MS, settings.errorPenaltyMs() * MS,
          P2cPeakEwma.DEFAULT_INITIAL_LATENCY_NANOS);
    };
  }
}
