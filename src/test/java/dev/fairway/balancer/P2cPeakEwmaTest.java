package dev.fairway.balancer;

import static dev.fairway.balancer.Picks.MS;
import static dev.fairway.balancer.Picks.S;
import static dev.fairway.balancer.Picks.complete;
import static dev.fairway.balancer.Picks.members;
import static dev.fairway.balancer.Picks.picks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class P2cPeakEwmaTest {

  private static P2cPeakEwma primed(List<Endpoint> m, long seed, long w1, long w2) {
    P2cPeakEwma s = new P2cPeakEwma(seed);
    s.reset(m);
    s.onComplete(m.get(0), w1, false, 0);
    s.onComplete(m.get(1), w2, false, 0);
    return s;
  }

  @Test
  void twoCandidatesLowerLatencyTimesActivePlusOne() {
    List<Endpoint> m = members("W1", "W2");
    assertThat(picks(primed(m, 1, MS, 3 * MS), m, 8)).isEqualTo("W1 W1 W1 W2 W1 W1 W1 W2");
  }

  @Test
  void aMemberThatCannotTakeIsNeverDrawn() {
    for (long seed : new long[] {1, 2, 3}) {
      List<Endpoint> m = members("W1", "W2", "W3");
      m.get(2).setCapacity(0);
      assertThat(picks(primed(m, seed, MS, 3 * MS), m, 8)).isEqualTo("W1 W1 W1 W2 W1 W1 W1 W2");
    }
    List<Endpoint> one = members("W1", "W2", "W3");
    one.get(0).setAvailable(false);
    one.get(2).setAvailable(false);
    assertThat(picks(new P2cPeakEwma(7), one, 3)).isEqualTo("W2 W2 W2");
    one.get(1).setAvailable(false);
    assertThat(picks(new P2cPeakEwma(7), one, 1)).isEqualTo("-");
  }

  /** Seed 42 draws (W3,W1) (W1,W2) (W1,W3) (W1,W3) (W2,W3) (W1,W2) (W2,W3) (W2,W1). */
  @Test
  void seededDrawsAmongThree() {
    List<Endpoint> m = members("W1", "W2", "W3");
    // all 1 ms: the one with fewer active wins, a tie goes to the member listed first
    assertThat(picks(new P2cPeakEwma(42), m, 8)).isEqualTo("W1 W2 W3 W1 W2 W1 W3 W2");
  }

  @Test
  void peakReplacesAtOnceLowerSamplesBlendIn() {
    List<Endpoint> m = members("W1", "W2");
    P2cPeakEwma s = primed(m, 1, MS, MS);
    s.onComplete(m.get(0), 5 * MS, false, 0);
    assertThat(s.latencyNanos(m.get(0), 0)).isEqualTo(5.0 * MS);
    assertThat(s.latencyNanos(m.get(0), 10 * S)).isCloseTo(5.0 * MS * Math.exp(-1), within(1.0));
    s.onComplete(m.get(0), MS, false, 10 * S);
    double w = Math.exp(-1);
    assertThat(s.latencyNanos(m.get(0), 10 * S)).isCloseTo(5.0 * MS * w + MS * (1 - w), within(1.0));
  }

  @Test
  void aFailureCountsAsTheErrorPenaltyAndIsTriedAgainOnceDecayed() {
    List<Endpoint> m = members("W1", "W2");
    P2cPeakEwma s = primed(m, 1, MS, MS);
    s.onComplete(m.get(1), MS, true, 0);
    assertThat(s.latencyNanos(m.get(1), 0)).isEqualTo(1.0 * S);
    assertThat(picks(s, m, 5, 0)).isEqualTo("W1 W1 W1 W1 W1");
    for (int i = 0; i < 5; i++) {
      complete(s, m.get(0), MS, false, 70 * S);
    }
    // W2: 1 s × e^-7 = 0.91 ms, below W1's fresh 1 ms; then 1.82 ms with one active
    assertThat(picks(s, m, 2, 70 * S)).isEqualTo("W2 W1");
  }
}
