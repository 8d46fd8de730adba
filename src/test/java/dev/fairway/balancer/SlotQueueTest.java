package dev.fairway.balancer;

import static dev.fairway.balancer.Picks.MS;
import static dev.fairway.balancer.Picks.complete;
import static dev.fairway.balancer.Picks.members;
import static dev.fairway.balancer.Picks.picks;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SlotQueueTest {

  private static List<Endpoint> capacities34() {
    List<Endpoint> m = members("W1", "W2");
    m.get(0).setCapacity(3);
    m.get(1).setCapacity(4);
    return m;
  }

  @Test
  void capacities3And4() {
    List<Endpoint> m = capacities34();
    SlotQueue s = new SlotQueue();
    s.reset(m);
    assertThat(s.describe()).isEqualTo("W2 W1 W2 W1 W2 W1 W2");
    assertThat(picks(s, m, 8)).isEqualTo("W2 W1 W2 W1 W2 W1 W2 -");
  }

  @Test
  void freedSlotJoinsTheTail() {
    List<Endpoint> m = capacities34();
    SlotQueue s = new SlotQueue();
    s.reset(m);
    assertThat(picks(s, m, 1)).isEqualTo("W2");
    complete(s, m.get(1), MS, false, 0);
    assertThat(s.describe()).isEqualTo("W1 W2 W1 W2 W1 W2 W2");
  }

  @Test
  void unavailableEntriesStayRemovedMembersGo() {
    List<Endpoint> m = capacities34();
    SlotQueue s = new SlotQueue();
    s.reset(m);
    m.get(1).setAvailable(false);
    assertThat(picks(s, m, 2)).isEqualTo("W1 W1");
    m.get(1).setAvailable(true);
    assertThat(s.describe()).isEqualTo("W2 W2 W2 W1 W2");
    List<Endpoint> onlyW1 = List.of(m.get(0));
    assertThat(picks(s, onlyW1, 2)).isEqualTo("W1 -");
    assertThat(s.describe()).isEmpty();
  }
}
