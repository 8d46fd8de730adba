package dev.fairway.balancer;

import static dev.fairway.balancer.Picks.MS;
import static dev.fairway.balancer.Picks.members;
import static dev.fairway.balancer.Picks.picks;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Slow start in the strategies without weights: round robin takes a ramping member on its share of
 * visits, least-loaded sees it as loaded in proportion. (Weighted strategies see the ramped weight;
 * every strategy sees the ramped capacity: {@code slots/FailureHoldsTest}.)
 */
class SlowStartPicksTest {

  @Test
  void roundRobinTakesAMemberAtAQuarterOnEveryFourthVisit() {
    List<Endpoint> m = members("W1", "W2", "W3");
    m.get(1).setRamp(0.25);
    RoundRobin rr = new RoundRobin();
    assertThat(picks(rr, m, 12)).isEqualTo("W1 W3 W1 W3 W1 W3 W1 W2 W3 W1 W3 W1");
    m.get(1).setRamp(1.0);
    assertThat(picks(rr, m, 6)).isEqualTo("W2 W3 W1 W2 W3 W1");
  }

  @Test
  void roundRobinStillTakesARampingMemberWhenNoOtherCan() {
    List<Endpoint> m = members("W1", "W2");
    m.get(0).setActive(100); // full
    m.get(1).setRamp(0.1);
    assertThat(picks(new RoundRobin(), m, 3)).isEqualTo("W2 W2 W2");
  }

  @Test
  void leastLoadedSeesAMemberAtTenPercentAsNineRequestsBusy() {
    List<Endpoint> m = members("t0", "t1", "t2");
    m.get(1).setRamp(0.1);
    assertThat(m.get(1).rampedLoad(0)).isEqualTo(9);
    LeastLoaded ll = new LeastLoaded();
    assertThat(picks(ll, m, 22)).isEqualTo(
        "t0 t2 t0 t2 t0 t2 t0 t2 t0 t2 t0 t2 t0 t2 t0 t2 t0 t2 t0 t1 t2 t0");
  }

  @Test
  void p2cSeesAMemberAtAQuarterAsFourTimesAsSlow() {
    List<Endpoint> m = members("W1", "W2");
    m.get(1).setRamp(0.25); // equal estimates: W2 costs 4 x (active + 1), W1 (active + 1)
    assertThat(picks(new P2cPeakEwma(7), m, 10)).isEqualTo("W1 W1 W1 W1 W2 W1 W1 W1 W1 W2");
  }

  @Test
  void fairShareSeesAMemberAtHalfAsTwiceAsSlow() {
    List<Endpoint> m = members("W1", "W2");
    FairShare s = new FairShare();
    s.reset(m);
    s.onComplete(m.get(0), MS, false, 0);
    s.onComplete(m.get(1), MS, false, 0);
    m.get(1).setRamp(0.5);
    assertThat(picks(s, m, 12)).isEqualTo("W1 W2 W1 W1 W2 W1 W1 W2 W1 W1 W2 W1"); // W2 a third, not a half
  }
}
