package dev.fairway.slots;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.BalancingSettings;
import dev.fairway.config.OutlierSettings;
import dev.fairway.config.StrategyName;
import dev.fairway.slots.SlotTableTest.Rec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 21 items 1 and 2: every lane and the queue's hand-offs pick from the same per-backend
 * signals, so errors and latencies seen on one event loop count on all of them.
 */
class SharedSignalsTest {
  private static final long NOW = 1_000_000;

  private static List<EndpointSpec> three(int capacity) {
    List<EndpointSpec> specs = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      specs.add(new EndpointSpec("b" + i, "127.0.0.1", i, capacity, 1, true));
    }
    return specs;
  }

  /** Least-loaded without the failure penalty, so that only the error counts differ. */
  private static ServiceSpec leastLoaded(List<String> members) {
    return new ServiceSpec("s", StrategyName.LEAST_LOADED, 100, 0, members, BalancingSettings.DEFAULTS,
        new OutlierSettings(5, 5, 30_000, 300_000, 50, 0, null), SlowStart.OFF);
  }

  /** Four failures of b1, one on each of {@code lanes} lanes (round robin), then nine picks on lane 0. */
  private static String picksAfterFourFailures(int lanes) {
    SlotTable table = new SlotTable(1, lanes);
    table.apply(three(10), List.of(leastLoaded(List.of("b1"))), NOW);
    for (int i = 0; i < 4; i++) {
      Rec r = new Rec("f" + i);
      assertThat(table.acquire(table.service("s"), r, NOW, i % lanes)).isEqualTo(Admission.GRANTED);
      table.release(r, NOW, 1000, true);
    }
    table.apply(three(10), List.of(leastLoaded(List.of("b1", "b2", "b3"))), NOW);
    List<String> picks = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      Rec r = new Rec("r" + i);
      table.acquire(table.service("s"), r, NOW, 0);
      picks.add(r.endpoint().id());
    }
    return String.join(" ", picks);
  }

  @Test
  void fourLanesCountErrorsAsOneLaneDoes() {
    // b1's four recent errors count as four active requests on every lane
    assertThat(picksAfterFourFailures(1)).isEqualTo("b2 b3 b2 b3 b2 b3 b2 b3 b1");
    assertThat(picksAfterFourFailures(4)).isEqualTo(picksAfterFourFailures(1));
  }

  @Test
  void aQueuedRequestIsHandedToTheBackendWithoutRecentErrors() {
    SlotTable table = new SlotTable(1, 2);
    table.apply(three(1), List.of(leastLoaded(List.of("b1"))), NOW);
    for (int i = 0; i < 3; i++) {
      Rec r = new Rec("f" + i);
      table.acquire(table.service("s"), r, NOW, 1);
      table.release(r, NOW, 1000, true); // three errors of b1, seen by lane 1
    }
    table.apply(three(1), List.of(leastLoaded(List.of("b1", "b2"))), NOW);
    List<Rec> held = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Rec r = new Rec("h" + i);
      assertThat(table.acquire(table.service("s"), r, NOW, 0)).isEqualTo(Admission.GRANTED);
      held.add(r);
    }
    Rec queued = new Rec("q");
    assertThat(table.acquire(table.service("s"), queued, NOW, 0)).isEqualTo(Admission.QUEUED);
    // both backends get room for one more: the queue's pick sees b1's errors and takes b2
    table.apply(three(2), List.of(leastLoaded(List.of("b1", "b2"))), NOW);
    assertThat(queued.grants).containsExactly("b2");
  }

  @Test
  void aBackendThatLeavesTheServiceLeavesItsSignalsBehind() {
    SlotTable table = new SlotTable(1, 1);
    table.apply(three(10), List.of(leastLoaded(List.of("b1"))), NOW);
    Rec f = new Rec("f");
    table.acquire(table.service("s"), f, NOW, 0);
    table.release(f, NOW, 1000, true); // one error of b1
    table.apply(three(10), List.of(leastLoaded(List.of("b2", "b3"))), NOW);
    table.apply(three(10), List.of(leastLoaded(List.of("b1", "b2", "b3"))), NOW);
    List<String> picks = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Rec r = new Rec("r" + i);
      table.acquire(table.service("s"), r, NOW, 0);
      picks.add(r.endpoint().id());
    }
    assertThat(String.join(" ", picks)).isEqualTo("b1 b2 b3"); // b1 comes back without its old error
  }
}
