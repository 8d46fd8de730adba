package dev.fairway.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.StrategyName;
import org.junit.jupiter.api.Test;

class StrategiesTest {

  @Test
  void eachNameHasItsOwnClass() {
    assertThat(Strategies.create(StrategyName.ROUND_ROBIN, 1)).isInstanceOf(RoundRobin.class);
    assertThat(Strategies.create(StrategyName.SLOT_QUEUE, 1)).isInstanceOf(SlotQueue.class);
    assertThat(Strategies.create(StrategyName.LEAST_LOADED, 1)).isInstanceOf(LeastLoaded.class);
    assertThat(Strategies.create(StrategyName.WEIGHTED_ROUND_ROBIN, 1)).isInstanceOf(WeightedRoundRobin.class);
    assertThat(Strategies.create(StrategyName.FAIR_SHARE, 1)).isInstanceOf(FairShare.class);
    assertThat(Strategies.create(StrategyName.INTERLEAVED_WEIGHTED_ROUND_ROBIN, 1))
        .isInstanceOf(InterleavedWeightedRoundRobin.class);
    assertThat(Strategies.create(StrategyName.P2C_PEAK_EWMA, 1)).isInstanceOf(P2cPeakEwma.class);
    assertThat(Strategies.create(StrategyName.P2C_PEAK_EWMA, 1)).isNotSameAs(Strategies.create(StrategyName.P2C_PEAK_EWMA, 1));
  }
}
