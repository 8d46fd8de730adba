package dev.fairway.balancer;

import dev.fairway.config.BalancingSettings;
import dev.fairway.config.StrategyName;
import java.util.Collection;
import java.util.function.LongFunction;

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
  public static final class Family {
    private final LongFunction<Strategy> maker;
    private final Signals<?> signals;

    private Family(LongFunction<Strategy> maker, Signals<?> signals) {
      this.maker = maker;
      this.signals = signals;
    }

    /** A new instance; {@code seed} drives its random draws, if it makes any. */
    public Strategy create(long seed) {
      return maker.apply(seed);
    }

    /** Forgets the signals of every backend but the service's {@code members}. */
    public void retain(Collection<Endpoint> members) {
      if (signals != null) {
        signals.retain(members);
      }
    }
  }

  /** The family of {@code name} with the service's tuning; see {@link Family}. */
  public static Family family(StrategyName name, BalancingSettings settings) {
    return switch (name) {
      case ROUND_ROBIN -> new Family(seed -> new RoundRobin(), null);
      case SLOT_QUEUE -> new Family(seed -> new SlotQueue(), null);
      case WEIGHTED_ROUND_ROBIN -> new Family(seed -> new WeightedRoundRobin(), null);
      case INTERLEAVED_WEIGHTED_ROUND_ROBIN -> new Family(seed -> new InterleavedWeightedRoundRobin(), null);
      case LEAST_LOADED -> {
        LeastLoaded.Shared errors = new LeastLoaded.Shared();
        yield new Family(seed -> new LeastLoaded(settings.errorWindowMs() * MS, errors), errors.errors);
      }
      case FAIR_SHARE -> {
        FairShare.Shared windows = new FairShare.Shared(settings.fairShareWindow());
        yield new Family(seed -> new FairShare(settings.fairShareWindow(), settings.fairShareMedian(),
            FairShare.DEFAULT_INITIAL_LATENCY_NANOS, windows), windows.members);
      }
      case P2C_PEAK_EWMA -> {
        Signals<P2cPeakEwma.Estimate> estimates = P2cPeakEwma.signals();
        yield new Family(seed -> new P2cPeakEwma(seed, settings.ewmaDecayMs() * MS, settings.errorPenaltyMs() * MS,
            P2cPeakEwma.DEFAULT_INITIAL_LATENCY_NANOS, estimates), estimates);
      }
    };
  }
}
