package dev.fairway.balancer;

import static dev.fairway.balancer.Picks.S;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class CapabilityScoreTest {

  @ParameterizedTest(name = "cpu {0} app {1} qps {2} eps {3} penalty {4} -> {5}")
  @CsvSource({
      // cpu, app, qps, eps, penalty, weight
      "0.5,  0,    100, 0,  1.0, 200",
      "0.5,  0.25, 100, 0,  1.0, 400",      // application utilization wins when above 0
      "0.5,  0,    100, 10, 1.0, 166.66666666666666", // 0.5 + 10/100
      "0.5,  0,    100, 10, 2.0, 142.85714285714286", // 0.5 + 2 × 10/100
      "0.5,  0,    100, 10, 0,   200",      // no penalty
      "0.42, 0,    120, 0.5, 1.0, 282.9076620825148",
      "0,    0,    100, 0,  1.0, 0",        // no utilization: no weight
      "0.5,  0,    0,   5,  1.0, 0",        // no qps: no weight
      "-0.5, 0,    100, 0,  1.0, 0",
      "2.0,  0,    100, 0,  1.0, 50",       // more than one core
  })
  void a58Weight(double cpu, double app, double qps, double eps, double penalty, double weight) {
    assertThat(CapabilityScore.weight(new LoadReport(cpu, app, qps, eps), penalty)).isCloseTo(weight, within(1e-9));
  }

  @Test
  void meanFillThenConfiguredWeight() {
    assertThat(CapabilityScore.fill(new double[] {100 / 0.6, 200, 0}, new double[] {1, 1, 2}))
        .containsExactly(new double[] {166.66666666666669, 200, 366.6666666666667}, within(1e-9));
    assertThat(CapabilityScore.fill(new double[] {0, Double.NaN}, new double[] {1, 3}))
        .containsExactly(1, 3);
    assertThat(CapabilityScore.fill(new double[] {300, 0, 100}, new double[] {1, 1, 1}))
        .containsExactly(300, 200, 100);
  }

  @Test
  void trackerBlackoutAndExpiration() {
    ScoreTracker t = new ScoreTracker();
    LoadReport half = new LoadReport(0.5, 0, 100, 0);
    assertThat(t.weight(0)).isZero();
    t.update(new LoadReport(0, 0, 100, 0), 0); // gives no weight: does not start the blackout
    t.update(half, 1 * S);
    assertThat(t.weight(5 * S)).isZero();
    assertThat(t.weight(11 * S - 1)).isZero();
    assertThat(t.weight(11 * S)).isEqualTo(200);
    t.update(new LoadReport(0.25, 0, 100, 0), 20 * S);
    assertThat(t.weight(20 * S)).isEqualTo(400); // no new blackout while reports keep coming
    assertThat(t.weight(200 * S - 1)).isEqualTo(400);
    assertThat(t.weight(200 * S)).isZero(); // 3 min without a report
    t.update(half, 300 * S);
    assertThat(t.weight(305 * S)).isZero(); // a new blackout
    assertThat(t.weight(310 * S)).isEqualTo(200);
  }

  @Test
  void weightsOfAListFillTheMean() {
    ScoreTracker a = new ScoreTracker();
    ScoreTracker b = new ScoreTracker();
    ScoreTracker c = new ScoreTracker(0, 180 * S, 1.0);
    a.update(new LoadReport(0.5, 0, 100, 0), 0);   // 200, usable from 10 s
    b.update(new LoadReport(0.5, 0, 100, 0), 5 * S); // 200, usable from 15 s
    c.update(new LoadReport(0.5, 0, 50, 0), 5 * S);  // 100, no blackout
    assertThat(CapabilityScore.weights(List.of(a, b, c), new double[] {1, 1, 1}, 12 * S))
        .containsExactly(200, 150, 100);
    assertThat(CapabilityScore.weights(List.of(a, b, c), new double[] {1, 2, 1}, 15 * S))
        .containsExactly(200, 400, 100);
  }
}
