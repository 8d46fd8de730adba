package dev.fairway.slots;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.balancer.Outcome;
import dev.fairway.config.BalancingSettings;
import dev.fairway.config.OutlierSettings;
import dev.fairway.config.StrategyName;
import dev.fairway.slots.SlotTableTest.Rec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 21 item 4 and slow start: a fast failure keeps its slot for the failure penalty, a failure
 * streak holds a backend back at once on this process, and a returning backend ramps up.
 */
class FailureHoldsTest {
  private static final long MS = 1_000_000L;
  private final SlotTable table = new SlotTable(1);
  private long now = 1_000 * MS;

  private void three(int capacity, OutlierSettings outliers, SlowStart slowStart, boolean b1Available) {
    List<EndpointSpec> specs = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      specs.add(new EndpointSpec("b" + i, "127.0.0.1", i, capacity, 1, i != 1 || b1Available));
    }
    table.apply(specs, List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 100, 0, List.of("b1", "b2", "b3"),
        BalancingSettings.DEFAULTS, outliers, slowStart)), now);
  }

  private Rec take() {
    Rec r = new Rec("r");
    Admission a = table.acquire(table.service("s"), r, now);
    if (a == Admission.QUEUED) {
      table.cancel(r);
    }
    return a == Admission.GRANTED ? r : null;
  }

  /** Round robin: {@code n} requests, each released at once with {@code outcome} if on b1, else success. */
  private String run(int n, Outcome b1Outcome) {
    List<String> picks = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Rec r = take();
      if (r == null) {
        picks.add("-");
        continue;
      }
      picks.add(r.endpoint().id());
      table.release(r, now, MS, r.endpoint().id().equals("b1") ? b1Outcome : Outcome.SUCCESS);
    }
    return String.join(" ", picks);
  }

  @Test
  void aFastFailureKeepsItsSlotForThePenalty() {
    three(1, OutlierSettings.DEFAULTS, SlowStart.OFF, true);
    // b1 fails in 1 ms: its only slot stays taken for the other 99 ms of the 100 ms penalty
    assertThat(run(6, Outcome.SERVER_ERROR)).isEqualTo("b1 b2 b3 b2 b3 b2");
    now += 98 * MS;
    table.tick(now);
    assertThat(run(2, Outcome.SUCCESS)).isEqualTo("b3 b2");
    now += MS;
    table.tick(now);
    assertThat(run(3, Outcome.SUCCESS)).isEqualTo("b3 b1 b2");
  }

  @Test
  void anOverloadedAnswerIsPenalizedButNeverStartsAStreak() {
    OutlierSettings noPenalty = new OutlierSettings(2, 2, 30_000, 300_000, 50, 0, null);
    three(10, noPenalty, SlowStart.OFF, true);
    assertThat(run(9, Outcome.OVERLOADED)).isEqualTo("b1 b2 b3 b1 b2 b3 b1 b2 b3");
    assertThat(run(6, Outcome.GATEWAY_FAILURE)).isEqualTo("b1 b2 b3 b1 b2 b3"); // held after its second
    assertThat(run(4, Outcome.SUCCESS)).isEqualTo("b2 b3 b2 b3");
  }

  @Test
  void aFailureStreakHoldsTheBackendBackUntilTheBaseEjectionTime() {
    OutlierSettings five = new OutlierSettings(5, 5, 30_000, 300_000, 50, 0, null);
    three(10, five, SlowStart.OFF, true);
    assertThat(run(15, Outcome.SERVER_ERROR)).isEqualTo("b1 b2 b3 b1 b2 b3 b1 b2 b3 b1 b2 b3 b1 b2 b3");
    assertThat(run(4, Outcome.SUCCESS)).isEqualTo("b2 b3 b2 b3"); // five in a row: held back at once
    assertThat(table.endpointCounts("b1")).isEqualTo(new TableView.EndpointCounts(0, 10, true, 1));
    now += 30_000 * MS;
    table.tick(now);
    assertThat(run(3, Outcome.SUCCESS)).isEqualTo("b1 b2 b3");
    assertThat(table.endpointCounts("b1")).isEqualTo(new TableView.EndpointCounts(0, 10, false, 1));
  }

  @Test
  void noMoreThanMaxEjectionPercentIsHeldBack() {
    OutlierSettings one = new OutlierSettings(1, 1, 30_000, 300_000, 50, 0, null); // 50 % of 3: one
    three(10, one, SlowStart.OFF, true);
    List<String> picks = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Rec r = take();
      picks.add(r.endpoint().id());
      table.release(r, now, MS, Outcome.SERVER_ERROR); // every backend fails
    }
    assertThat(String.join(" ", picks)).isEqualTo("b1 b2 b3 b2 b3 b2"); // b1 held; b2, b3 never
  }

  @Test
  void aReturningBackendRampsItsCapacityOverSlowStart() {
    SlowStart tenSeconds = new SlowStart(10_000, 10);
    three(20, OutlierSettings.DEFAULTS, tenSeconds, false);
    three(20, OutlierSettings.DEFAULTS, tenSeconds, true); // b1 comes back: 10 % of 20 = 2 slots
    assertThat(table.endpointCounts("b1").capacity()).isEqualTo(20);
    assertThat(grantsOnB1()).isEqualTo(2);
    now += 5_000 * MS;
    table.tick(now); // 55 %: 11 slots (20 x 0.55, rounded up)
    assertThat(grantsOnB1()).isEqualTo(11);
    now += 5_000 * MS;
    table.tick(now);
    assertThat(grantsOnB1()).isEqualTo(20);
  }

  /** Takes slots until b1 refuses, then gives them all back; returns how many b1 granted. */
  private int grantsOnB1() {
    List<Rec> held = new ArrayList<>();
    int onB1 = 0;
    for (int i = 0; i < 60; i++) {
      Rec r = take();
      if (r == null) {
        break;
      }
      held.add(r);
      onB1 += r.endpoint().id().equals("b1") ? 1 : 0;
    }
    held.forEach(r -> table.release(r, now, MS, Outcome.SUCCESS));
    return onB1;
  }
}
