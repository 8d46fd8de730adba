package dev.fairway.balancer;

import static dev.fairway.balancer.Picks.MS;
import static dev.fairway.balancer.Picks.complete;
import static dev.fairway.balancer.Picks.members;
import static dev.fairway.balancer.Picks.picks;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;

class FairShareTest {

  private static FairShare primed(List<Endpoint> m, FairShare s, long... w1ThenW2) {
    s.reset(m);
    for (int i = 0; i < w1ThenW2.length; i++) {
      s.onComplete(m.get(i < w1ThenW2.length / 2 ? 0 : 1), w1ThenW2[i], false, 0);
    }
    return s;
  }

  @Test
  void lowestPredictedEndWins() {
    List<Endpoint> m = members("W1", "W2");
    FairShare s = primed(m, new FairShare(), MS, 3 * MS);
    assertThat(picks(s, m, 7)).isEqualTo("W1 W1 W2 W1 W1 W1 W2");
  }

  @Test
  void fullMemberIsPassedOver() {
    List<Endpoint> m = members("W1", "W2");
    m.get(0).setCapacity(3);
    FairShare s = primed(m, new FairShare(), MS, 3 * MS);
    assertThat(picks(s, m, 6)).isEqualTo("W1 W1 W2 W1 W2 W2"); // W1 full after its third
  }

  @Test
  void aMemberThatFellBehindCatchesUpByTheHorizonOnly() {
    List<Endpoint> m = members("W1", "W2");
    FairShare s = primed(m, new FairShare(2, false, MS), MS, MS, MS, MS); // 1 ms each; horizon 2 x 1 ms
    m.get(0).setAvailable(false);
    assertThat(picks(s, m, 6)).isEqualTo("W2 W2 W2 W2 W2 W2"); // W2's predicted end 4 ms, clock 3 ms
    m.get(0).setAvailable(true);
    // W1 restarts at the clock less the horizon (1 ms): three picks of catching up, then turns
    assertThat(picks(s, m, 6)).isEqualTo("W1 W1 W1 W2 W1 W2");
  }

  @Test
  void aSlowMemberGetsWorkInProportionToItsSpeed() {
    List<Endpoint> m = members("W1", "W2");
    FairShare s = primed(m, new FairShare(), 2 * MS, 4 * MS);
    StringJoiner out = new StringJoiner(" ");
    for (int i = 0; i < 9; i++) {
      out.add(s.pick(m, i * MS).id()); // one every millisecond, none ending: the clock is the service's
    }
    assertThat(out.toString()).isEqualTo("W1 W2 W1 W1 W2 W1 W1 W2 W1"); // W2, twice as slow: a third
  }

  @Test
  void movingMedianIgnoresTheOutlierTheAverageDoesNot() {
    List<Endpoint> m = members("W1", "W2");
    FairShare median = primed(m, new FairShare(3, true, MS), MS, MS, 10 * MS, 2 * MS, 2 * MS, 2 * MS);
    assertThat(median.latencyNanos(m.get(0), MS)).isEqualTo(MS);
    assertThat(picks(median, m, 5)).isEqualTo("W1 W2 W1 W1 W2");

    List<Endpoint> a = members("W1", "W2");
    FairShare average = primed(a, new FairShare(3, false, MS), MS, MS, 10 * MS, 2 * MS, 2 * MS, 2 * MS);
    assertThat(average.latencyNanos(a.get(0), MS)).isEqualTo(4 * MS);
    assertThat(picks(average, a, 5)).isEqualTo("W2 W1 W2 W2 W1");
  }

  @Test
  void windowKeepsTheLastN() {
    List<Endpoint> m = members("W1", "W2");
    FairShare s = primed(m, new FairShare(2, false, MS), 10 * MS, 2 * MS);
    assertThat(s.latencyNanos(m.get(0), MS)).isEqualTo(10 * MS);
    s.onComplete(m.get(0), 2 * MS, false, 0);
    s.onComplete(m.get(0), 4 * MS, false, 0);
    assertThat(s.latencyNanos(m.get(0), MS)).isEqualTo(3 * MS); // 10 ms has left the window of 2
  }

  @Test
  void initialLatencyThenTheServiceAverage() {
    List<Endpoint> m = members("W1", "W2", "W3");
    assertThat(picks(new FairShare(), m, 6)).isEqualTo("W1 W2 W3 W1 W2 W3");

    List<Endpoint> n = members("W1", "W2");
    FairShare s = new FairShare();
    s.reset(n);
    s.onComplete(n.get(0), 4 * MS, false, 0);
    assertThat(s.latencyNanos(n.get(1), MS)).isEqualTo(4 * MS); // not the 1 ms initial latency
    assertThat(picks(s, n, 4)).isEqualTo("W1 W2 W1 W2");
  }

  @Test
  void failingFastDoesNotLowerTheLatency() {
    List<Endpoint> m = members("W1", "W2");
    FairShare s = primed(m, new FairShare(), 4 * MS, 4 * MS);
    s.onComplete(m.get(0), 100_000, true, 0);
    assertThat(s.latencyNanos(m.get(0), MS)).isEqualTo(4 * MS);
    s.onComplete(m.get(1), 100_000, false, 0);
    assertThat(s.latencyNanos(m.get(1), MS)).isEqualTo(2_050_000L);
  }

  @Test
  void noneCanTake() {
    List<Endpoint> m = members("W1", "W2");
    m.forEach(e -> e.setAvailable(false));
    assertThat(picks(new FairShare(), m, 2)).isEqualTo("- -");
  }
}
