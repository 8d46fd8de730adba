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
  void anUnusableWeightStandsForTheMean() {
    List<Endpoint> m = members("W1", "W2", "W3");
    weights(m, 1, 3, Double.NaN);
    // W3 weighs 2: turns W1 1/2, 3/2; W2 1/6, 1/2, 5/6, 7/6, 3/2, 11/6; W3 1/4, 3/4, 5/4, 7/4
    assertThat(picks(new WeightedRoundRobin(), m, 12)).isEqualTo("W2 W3 W1 W2 W3 W2 W2 W3 W1 W2 W3 W2");
  }

  @Test
  void weightChangeTakesEffectAtOnce() {
    List<Endpoint> m = members("W1", "W2", "W3");
    WeightedRoundRobin s = new WeightedRoundRobin();
    assertThat(picks(s, m, 4)).isEqualTo("W1 W2 W3 W1");
    m.get(0).setWeight(3);
    // turns from zero: W1 at 1/6, 1/2, 5/6; W2 and W3 at 1/2; W1 wins the tie at 1/2
    assertThat(picks(s, m, 5)).isEqualTo("W1 W1 W2 W3 W1");
    m.get(0).setWeight(1);
    assertThat(picks(s, m, 3)).isEqualTo("W2 W3 W1");
  }

  @Test
  void aChangedWeightKeepsTheMembersPlace() {
    List<Endpoint> m = members("W1", "W2");
    weights(m, 1, 3);
    WeightedRoundRobin s = new WeightedRoundRobin();
    assertThat(picks(s, m, 2)).isEqualTo("W2 W1"); // at 1/6 and 1/2; next turns W1 3/2, W2 1/2
    m.get(1).setWeight(6);
    // W2's next turn was due now (wait 0): it stays due and comes every 1/6; W1's is 1 away.
    // Restarting from zero would give W2 W2 W2 W1 instead.
    assertThat(picks(s, m, 6)).isEqualTo("W2 W2 W2 W2 W2 W2");
  }

  @Test
  void anotherEndpointsWeightChangeDoesNotRestartTheTurns() {
    List<Endpoint> m = members("W1", "W2");
    weights(m, 1, 3);
    WeightedRoundRobin s = new WeightedRoundRobin();
    assertThat(picks(s, m, 2)).isEqualTo("W2 W1");
    members("X").get(0).setWeight(5); // moves the weight epoch
    assertThat(picks(s, m, 4)).isEqualTo("W2 W2 W2 W1"); // turns at 1/2, 5/6, 7/6, 3/2 (restart: W2 W1 W2 W2)
  }

  @Test
  void fullAndFreedMidStream() {
    List<Endpoint> m = members("W1", "W2", "W3");
    weights(m, 1, 2, 3);
    m.get(2).setCapacity(2);
    WeightedRoundRobin s = new WeightedRoundRobin();
    assertThat(picks(s, m, 4)).isEqualTo("W3 W2 W1 W3");
    // W3, full, loses its turns at 5/6, 7/6, 3/2, 11/6, 13/6; the others take theirs:
    // W2 3/4 | (W3 5/6, W3 7/6) W2 5/4 | W1 3/2 | (W3 3/2) W2 7/4 | (W3 11/6, W3 13/6) W2 9/4
    assertThat(picks(s, m, 5)).isEqualTo("W2 W2 W1 W2 W2");
    complete(s, m.get(2), MS, false, 0);
    // no catch-up: freed W3 takes its next turn, 5/2, after W1's at the same time
    assertThat(picks(s, m, 2)).isEqualTo("W1 W3");
    m.get(0).setAvailable(false);
    m.get(1).setAvailable(false);
    assertThat(picks(s, m, 1)).isEqualTo("-");
  }

  @Test
  void manyMembersThatCannotTakeFallBackToAScan() {
    String[] ids = new String[12];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = "W" + (i + 1);
    }
    List<Endpoint> m = members(ids);
    double[] w = new double[ids.length];
    java.util.Arrays.fill(w, 10);
    w[11] = 1;
    weights(m, w);
    for (int i = 0; i < 11; i++) {
      m.get(i).setAvailable(false);
    }
    // W12's turn at 1/2 is preceded by 55 turns of the others (at 1/20, 3/20, ... 9/20), more
    // than MAX_SKIPS: the scan finds it; and then every pick again
    assertThat(picks(new WeightedRoundRobin(), m, 3)).isEqualTo("W12 W12 W12");
  }
}
