package dev.fairway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.lease.Holding;
import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The entry processor's step on a plain entry, and the JSON it keeps in the lease map. */
class RenewLeaseTest {
  @Test
  void renewalsOnTheStoredJsonMoveTheBusyMembersShareUp() {
    Map.Entry<String, String> entry = new AbstractMap.SimpleEntry<>("b1", null);
    List<String> live = List.of("a", "b", "c");
    int a1 = new RenewLease("a", 20, 0, 0, 1, live).process(entry);
    int b1 = new RenewLease("b", 20, 0, 0, 2, live).process(entry);
    int c1 = new RenewLease("c", 20, 0, 0, 3, live).process(entry);
    int a2 = new RenewLease("a", 20, 7, 23, 4, live).process(entry);
    int b2 = new RenewLease("b", 20, 7, 3, 5, live).process(entry);
    int c2 = new RenewLease("c", 20, 6, 3, 6, live).process(entry);
    int a3 = new RenewLease("a", 20, 7, 23, 7, live).process(entry);
    int b3 = new RenewLease("b", 20, 3, 3, 8, live).process(entry);
    int c3 = new RenewLease("c", 20, 3, 3, 9, live).process(entry);
    int a4 = new RenewLease("a", 20, 7, 23, 10, live).process(entry);
    assertThat(new int[] {a1, b1, c1, a2, b2, c2, a3, b3, c3, a4}).containsExactly(7, 7, 6, 7, 3, 3, 7, 3, 3, 14);
    assertThat(entry.getValue()).isEqualTo("{\"a\":{\"share\":14,\"inUse\":7,\"demand\":23,\"updatedAt\":10},"
        + "\"b\":{\"share\":3,\"inUse\":3,\"demand\":3,\"updatedAt\":8},"
        + "\"c\":{\"share\":3,\"inUse\":3,\"demand\":3,\"updatedAt\":9}}");
  }

  @Test
  void theJsonReadsBackAsTheSameHoldings() {
    Map<String, Holding> h = Map.of("a", new Holding(14, 7, 23, 9), "b", new Holding(0, 0, 0, 7, false));
    assertThat(LeaseEntries.decode(LeaseEntries.encode(h))).isEqualTo(h);
    assertThat(LeaseEntries.decode(null)).isEmpty();
  }
}
