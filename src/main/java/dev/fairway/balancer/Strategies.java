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
    return family(name, settings).create(seed);
  }

  /**
   * Makes the instances of one service's strategy: one per event loop, all sharing the service's
   * per-backend {@link Signals} (errors, latency estimates, predicted ends).
   *
   * <p>Example: {@code Family f = family(LEAST_LOADED, DEFAULTS)}; an error completed on
   * {@code f.create(1)} counts for the picks of {@code f.create(2)} too.
   */
  @FunctionalInterface
  public interface Family {
    /** A new instance; {@code seed} drives its random draws, if it makes any. */
    Strategy create(long seed);
  }

  /** The family of {@code name} with the service's tuning; see {@link Family}. */
  public static Family family(StrategyName name, BalancingSettings settings) {
    return switch (name) {
      case ROUND_ROBIN -> seed -> new RoundRobin();
      case SLOT_QUEUE -> seed -> new SlotQueue();
      case WEIGHTED_ROUND_ROBIN -> seed -> new WeightedRoundRobin();
      case INTERLEAVED_WEIGHTED_ROUND_ROBIN -> seed -> new InterleavedWeightedRoundRobin();
      case LEAST_LOADED -> {
        Signals<LeastLoaded.Errors> errors = LeastLoaded.signals();
        yield seed -> new LeastLoaded(settings.errorWindowMs() * MS, errors);
      }
      case FAIR_SHARE -> {
        FairShare.Shared windows = new FairShare.Shared(settings.fairShareWindow());
        yield seed -> new FairShare(settings.fairShareWindow(), settings.fairShareMedian(),
            FairShare.DEFAULT_INITIAL_LATENCY_NANOS, windows);
      }
      case P2C_PEAK_EWMA -> {
        Signals<P2cPeakEwma.Estimate> estimates = P2cPeakEwma.signals();
        yield seed -> new P2cPeakEwma(seed, settings.ewmaDecayMs() * MS, settings.errorPenaltyMs() * MS,
            P2cPeakEwma.DEFAULT_INITIAL_LATENCY_NANOS, estimates);
      }
    };
  }
}
