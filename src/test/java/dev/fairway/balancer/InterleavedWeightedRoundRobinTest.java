package dev.fairway.balancer;

import static dev.fairway.balancer.Picks.MS;
import static dev.fairway.balancer.Picks.complete;
import static dev.fairway.balancer.Picks.members;
import static dev.fairway.balancer.Picks.picks;
import static dev.fairway.balancer.Picks.weights;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class InterleavedWeightedRoundRobinTest {

  @Test
  void roundsOverDistinctWeightsAscending() {
    List<Endpoint> m = members("W1", "W2", "W3");
    weights(m, 1, 2, 3);
    assertThat(picks(new InterleavedWeightedRoundRobin(), m, 12)).isEqualTo("W1 W2 W3 W2 W3 W3 W1 W2 W3 W2 W3 W3");
  }

  @Test
  void aRoundIsRepeatedForTheGapToThePreviousOne() {
    List<Endpoint> m = members("W1", "W2");
    weights(m, 1, 4);
    assertThat(picks(new InterleavedWeightedRoundRobin(), m, 10)).isEqualTo("W1 W2 W2 W2 W2 W1 W2 W2 W2 W2");
    List<Endpoint> r = members("W1", "W2");
    weights(r, 150, 300); // quanta 1 and 2
    assertThat(picks(new InterleavedWeightedRoundRobin(), r, 6)).isEqualTo("W1 W2 W2 W1 W2 W2");
  }

  @Test
  void equalWeightsAreRoundRobin() {
    List<Endpoint> m = members("W1", "W2", "W3");
    weights(m, 7, 7, -1);
    assertThat(picks(new InterleavedWeightedRoundRobin(), m, 6)).isEqualTo("W1 W2 W3 W1 W2 W3");
  }

  @Test
  void fullMemberIsPassedOverAndItsRoundsSkipped() {
    List<Endpoint> m = members("W1", "W2", "W3");
    weights(m, 1, 2, 3);
    InterleavedWeightedRoundRobin s = new InterleavedWeightedRoundRobin();
    assertThat(picks(s, m, 4)).isEqualTo("W1 W2 W3 W2");
    m.get(2).setAvailable(false);
    assertThat(picks(s, m, 6)).isEqualTo("W1 W2 W2 W1 W2 W2");
    m.get(2).setAvailable(true);
    m.get(2).setCapacity(m.get(2).active() + 1);
    // back in round 1 (weight 2) after W2: W3, then round 2 with W3 full is skipped
    assertThat(picks(s, m, 4)).isEqualTo("W3 W1 W2 W2");
    complete(s, m.get(2), MS, false, 0);
    // still in round 1 at W3, which can take again; full again after it, so round 2 is skipped
    assertThat(picks(s, m, 2)).isEqualTo("W3 W1");
  }

  @Test
  void weightChangeRestartsTheCycleInPlace() {
    List<Endpoint> m = members("W1", "W2", "W3");
    weights(m, 1, 2, 3);
    InterleavedWeightedRoundRobin s = new InterleavedWeightedRoundRobin();
    assertThat(picks(s, m, 4)).isEqualTo("W1 W2 W3 W2");
    m.get(0).setWeight(3); // quanta 3/2 -> 2, 1, 2: rounds 1 and 2
    assertThat(picks(s, m, 8)).isEqualTo("W3 W1 W3 W1 W2 W3 W1 W3");
  }

  @Test
  void anotherEndpointsWeightChangeDoesNotRestartTheCycle() {
    List<Endpoint> m = members("W1", "W2", "W3");
    weights(m, 1, 2, 3);
    InterleavedWeightedRoundRobin s = new InterleavedWeightedRoundRobin();
    assertThat(picks(s, m, 4)).isEqualTo("W1 W2 W3 W2");
    members("X").get(0).setWeight(5); // moves the weight epoch
    // round 2 goes on at W3, then round 3; a restart would give W3 W2 W3 W3
    assertThat(picks(s, m, 4)).isEqualTo("W3 W3 W1 W2");
  }

  @Test
  void noneCanTakeLeavesTheCycleWhereItWas() {
    List<Endpoint> m = members("W1", "W2", "W3");
    weights(m, 1, 2, 3);
    InterleavedWeightedRoundRobin s = new InterleavedWeightedRoundRobin();
    assertThat(picks(s, m, 2)).isEqualTo("W1 W2");
    m.forEach(e -> e.setAvailable(false));
    assertThat(picks(s, m, 2)).isEqualTo("- -");
    m.forEach(e -> e.setAvailable(true));
    assertThat(picks(s, m, 4)).isEqualTo("W3 W2 W3 W3");
  }
}
