package dev.fairway.balancer;

import static dev.fairway.balancer.Picks.MS;
import static dev.fairway.balancer.Picks.complete;
import static dev.fairway.balancer.Picks.members;
import static dev.fairway.balancer.Picks.picks;
import static dev.fairway.balancer.Picks.weights;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class WeightedRoundRobinTest {

  @Test
  void weights3And4Interleave() {
    List<Endpoint> m = members("W1", "W2");
    weights(m, 3, 4);
    assertThat(picks(new WeightedRoundRobin(), m, 14)).isEqualTo("W2 W1 W2 W1 W2 W1 W2 W2 W1 W2 W1 W2 W1 W2");
  }

  @Test
  void weights1To3NeverBurstThree() {
    List<Endpoint> m = members("W1", "W2", "W3");
    weights(m, 1, 2, 3);
    assertThat(picks(new WeightedRoundRobin(), m, 12)).isEqualTo("W3 W2 W1 W3 W2 W3 W3 W2 W1 W3 W2 W3");
  }

  @Test
  void equalOrUnusableWeightsAreRoundRobin() {
    List<Endpoint> m = members("W1", "W2", "W3");
    weights(m, 2, 2, Double.NaN);
    assertThat(picks(new WeightedRoundRobin(), m, 6)).isEqualTo("W1 W2 W3 W1 W2 W3");
    List<Endpoint> z = members("W1", "W2");
    weights(z, 5, 0);
    assertThat(picks(new WeightedRoundRobin(), z, 4)).isEqualTo("W1 W2 W1 W2");
  }

  @Test
  void weightChangeTakesEffectAtOnce() {
    List<Endpoint> m = members("W1", "W2", "W3");
    WeightedRoundRobin s = new WeightedRoundRobin();
    assertThat(picks(s, m, 4)).isEqualTo("W1 W2 W3 W1");
    m.get(0).setWeight(3);
    // credits from zero, total 5: W1 3,-2 | W2 wins the tie at 2 | W1 | W3 | W1
    assertThat(picks(s, m, 5)).isEqualTo("W1 W2 W1 W3 W1");
    m.get(0).setWeight(1);
    assertThat(picks(s, m, 3)).isEqualTo("W2 W3 W1");
  }

  @Test
  void fullAndFreedMidStream() {
    List<Endpoint> m = members("W1", "W2", "W3");
    weights(m, 1, 2, 3);
    m.get(2).setCapacity(2);
    WeightedRoundRobin s = new WeightedRoundRobin();
    assertThat(picks(s, m, 4)).isEqualTo("W3 W2 W1 W3");
    // W3 full, keeps credit 0; W1 -2 and W2 2 go on alone (total 3)
    assertThat(picks(s, m, 5)).isEqualTo("W2 W2 W2 W1 W2");
    complete(s, m.get(2), MS, false, 0);
    assertThat(picks(s, m, 1)).isEqualTo("W3");
    m.get(0).setAvailable(false);
    m.get(1).setAvailable(false);
    assertThat(picks(s, m, 1)).isEqualTo("-");
  }
}
