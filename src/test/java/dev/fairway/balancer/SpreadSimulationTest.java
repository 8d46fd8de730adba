package dev.fairway.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.StrategyName;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The spread benchmark as a deterministic simulation ({@link SpreadSimulation}): six
 * single-worker backends, b3 and b6 twice as slow, request costs 1..10, Poisson arrivals at a
 * fraction of the fleet's capacity, 10 s warm-up and 60 s measured, all in simulated time.
 *
 * <p>Spread is max / min over the backends of utilization (busy time / wall time). At 70 % of
 * capacity, round robin sends every backend 0.583 of a fast backend's capacity: the fast ones run
 * at 0.583 while the slow ones would need 1.167 and sit at 1.0 with a growing queue, so their
 * utilization spread is about 1 / 0.583 = 1.71 (1.76 with this seed's draws). The 2x of the book shows in the work sent
 * (demand spread, 2.0) and, below 60 % of capacity, where no backend saturates, in utilization
 * too (50 %: 2.0).
 */
class SpreadSimulationTest {
  private static final long SEED = 20261122L;

  @Test
  void weightedRoundRobinKeepsSpreadWithin115AtSeventyPercent() {
    SpreadSimulation.Result r = SpreadSimulation.run(StrategyName.WEIGHTED_ROUND_ROBIN, 0.7, SEED);
    assertThat(r.utilizationSpread())
        .as("weighted-round-robin utilization spread at 70%% (measured 1.025): %s", r.row())
        .isLessThanOrEqualTo(1.15);
    assertThat(r.demandSpread()).as("weighted-round-robin demand spread at 70%% (measured 1.025): %s", r.row()).isLessThanOrEqualTo(1.15);
  }

  @Test
  void roundRobinSpreadsLoadTwoToOne() {
    SpreadSimulation.Result at70 = SpreadSimulation.run(StrategyName.ROUND_ROBIN, 0.7, SEED);
    assertThat(at70.demandSpread())
        .as("round-robin demand spread at 70%% (measured 2.039): %s", at70.row())
        .isGreaterThanOrEqualTo(1.8);
    assertThat(at70.utilizationSpread())
        .as("round-robin utilization spread at 70%%, about 1 / 0.583 = 1.71 (measured 1.757): %s", at70.row())
        .isBetween(1.6, 1.85);
    SpreadSimulation.Result at50 = SpreadSimulation.run(StrategyName.ROUND_ROBIN, 0.5, SEED);
    assertThat(at50.utilizationSpread())
        .as("round-robin utilization spread at 50%% (measured 2.021): %s", at50.row())
        .isGreaterThanOrEqualTo(1.8);
  }

  @Test
  void sameSeedSameSpreads() {
    SpreadSimulation.Result a = SpreadSimulation.run(StrategyName.P2C_PEAK_EWMA, 0.7, SEED);
    SpreadSimulation.Result b = SpreadSimulation.run(StrategyName.P2C_PEAK_EWMA, 0.7, SEED);
    assertThat(a.utilization()).containsExactly(b.utilization());
    assertThat(a.demand()).containsExactly(b.demand());
  }

  /**
   * Fair share keeps every backend in use (issue 21): a slow backend that once looked slow gets
   * fresh samples, and queueing seen in a latency is not counted twice; spread at most 1.5 at 50 %
   * and 90 % load (20.95 at 50 % before).
   */
  @ParameterizedTest
  @ValueSource(doubles = {0.5, 0.9})
  void fairShareSpreadsWithin1point5(double load) {
    SpreadSimulation.Result r = SpreadSimulation.run(StrategyName.FAIR_SHARE, load, SEED);
    assertThat(r.utilizationSpread()).as(r.row()).isLessThanOrEqualTo(1.5);
  }

  /** Every strategy at 70 %, each backend's utilization in (0, 1]; -Dspread.print=true prints them and more. */
  @Test
  void everyStrategy() {
    StringBuilder table = new StringBuilder("| strategy | load | b1 | b2 | b3 (slow) | b4 | b5 | b6 (slow) "
        + "| utilization spread | demand spread |\n");
    for (double load : new double[] {0.7}) {
      for (StrategyName s : StrategyName.values()) {
        SpreadSimulation.Result r = SpreadSimulation.run(s, load, SEED);
        table.append(r.row()).append('\n');
        assertThat(Arrays.stream(r.utilization()).allMatch(u -> u > 0 && u <= 1.0 + 1e-9))
            .as("utilizations in (0, 1]: %s", r.row()).isTrue();
      }
    }
    if (Boolean.getBoolean("spread.print")) { // mvn -q test -Dtest=SpreadSimulationTest -Dspread.print=true
      // not asserted, only for docs/benchmarks.md: small on-proxy capacities, and 50 % load
      for (int capacity : new int[] {1, 2, 4}) {
        for (StrategyName s : StrategyName.values()) {
          table.append(SpreadSimulation.run(s, 0.7, SEED, capacity).row()).append('\n');
        }
      }
      for (double load : new double[] {0.5, 0.9}) {
        for (StrategyName s : StrategyName.values()) {
          table.append(SpreadSimulation.run(s, load, SEED).row()).append('\n');
        }
      }
      System.out.println(table);
    }
  }
}
