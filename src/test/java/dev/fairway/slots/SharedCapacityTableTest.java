package dev.fairway.slots;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.BalancingSettings;
import dev.fairway.config.OutlierSettings;
import dev.fairway.config.StrategyName;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Cluster mode's shared capacity in the slot table: a share limits a backend along with its capacity and slow start. */
class SharedCapacityTableTest {
  private final SlotTable table = new SlotTable(1);
  private long now = 1_000_000;

  private void oneBackend(int capacity, SlowStart slowStart) {
    table.apply(List.of(new EndpointSpec("b1", "127.0.0.1", 1, capacity, 1, true)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 100, 0, List.of("b1"), BalancingSettings.DEFAULTS,
            OutlierSettings.DEFAULTS, slowStart)), now);
  }

  private String acquire(int n, List<SlotTableTest.Rec> held) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      SlotTableTest.Rec r = new SlotTableTest.Rec("r" + held.size());
      Admission a = table.acquire(table.service("s"), r, now);
      out.add(a == Admission.GRANTED ? r.endpoint().id() : a.name());
      held.add(r);
    }
    return String.join(" ", out);
  }

  @Test
  void withoutSharingTheCapacityIsAllThisProcesses() {
    oneBackend(3, SlowStart.OFF);
    assertThat(acquire(4, new ArrayList<>())).isEqualTo("b1 b1 b1 QUEUED");
    assertThat(table.shares()).isNull();
  }

  @Test
  void aShareLimitsTheBackendAndARaisedOneServesWaitersAtOnce() {
    oneBackend(20, SlowStart.OFF);
    table.shareCapacity();
    List<SlotTableTest.Rec> held = new ArrayList<>();
    assertThat(acquire(1, held)).isEqualTo("QUEUED");
    table.setShares(Map.of("b1", 2), now);
    assertThat(held.get(0).grants).containsExactly("b1");
    assertThat(acquire(3, held)).isEqualTo("b1 QUEUED QUEUED");
    table.setShares(Map.of("b1", 3), now);
    assertThat(held.get(2).grants).containsExactly("b1");
    assertThat(held.get(3).grants).isEmpty();
    assertThat(table.demand()).isEqualTo(Map.of("b1", 4));
  }

  @Test
  void aChangeOfTheBackendsInUseAsksForALeaseRoundAtOnce() {
    table.shareCapacity();
    List<String> rounds = new ArrayList<>();
    table.whenUseChanges(() -> rounds.add("round"));
    oneBackend(20, SlowStart.OFF);
    oneBackend(25, SlowStart.OFF); // same backend in use: the next interval's round will do
    table.apply(List.of(new EndpointSpec("b1", "127.0.0.1", 1, 20, 1, true),
            new EndpointSpec("b2", "127.0.0.1", 2, 20, 1, true)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 100, 0, List.of("b1", "b2"), BalancingSettings.DEFAULTS,
            OutlierSettings.DEFAULTS, SlowStart.OFF)), now);
    assertThat(rounds).hasSize(2);
  }

  @Test
  void theBalancersNextApplyKeepsTheShare() {
    oneBackend(20, SlowStart.OFF);
    table.shareCapacity();
    table.setShares(Map.of("b1", 2), now);
    oneBackend(25, SlowStart.OFF);
    assertThat(acquire(3, new ArrayList<>())).isEqualTo("b1 b1 QUEUED");
    assertThat(table.shares()).isEqualTo(Map.of("b1", 2));
  }

  @Test
  void aLoweredShareStopsNewGrantsUntilInFlightRequestsAreBelowIt() {
    oneBackend(20, SlowStart.OFF);
    table.shareCapacity();
    table.setShares(Map.of("b1", 3), now);
    List<SlotTableTest.Rec> held = new ArrayList<>();
    acquire(3, held);
    table.setShares(Map.of("b1", 1), now);
    table.release(held.get(0), now, 1, false);
    assertThat(acquire(1, held)).isEqualTo("QUEUED");
    table.release(held.get(1), now, 1, false);
    table.release(held.get(2), now, 1, false);
    assertThat(held.get(3).grants).containsExactly("b1");
  }

  @Test
  void theDemandNamesOnlyTheBackendsOfThisProcesssSubsets() {
    table.apply(List.of(new EndpointSpec("b1", "127.0.0.1", 1, 20, 1, true),
            new EndpointSpec("b2", "127.0.0.1", 2, 20, 1, true)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 100, 0, List.of("b1"))), now);
    table.shareCapacity();
    table.setShares(Map.of("b1", 1, "b2", 5), now);
    assertThat(acquire(3, new ArrayList<>())).isEqualTo("b1 QUEUED QUEUED");
    assertThat(table.demand()).isEqualTo(Map.of("b1", 3));
  }

  @Test
  void slowStartScalesTheSmallerOfCapacityAndShare() {
    oneBackend(100, SlowStart.OFF);
    table.shareCapacity();
    table.setShares(Map.of("b1", 10), now);
    table.apply(List.of(new EndpointSpec("b1", "127.0.0.1", 1, 100, 1, false)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 100, 0, List.of("b1"))), now);
    oneBackend(100, new SlowStart(10_000, 50)); // b1 returns: half of min(100, 10)
    assertThat(acquire(6, new ArrayList<>())).isEqualTo("b1 b1 b1 b1 b1 QUEUED");
  }
}
