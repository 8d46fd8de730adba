package dev.fairway.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Health checks under subsetting and the panic threshold, as event sequences. Nine backends b1..b9
 * with subset size 3 give client 1 of 3 the subset {@code [b2, b6, b7]}; thresholds 2/3, checks
 * every second. See {@link TableHarness} for the event lines.
 */
class BackendTablePanicTest extends TableHarness {
  private static final List<String> ALL = List.of("b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9");

  private void startNine(int panicThresholdPercent) {
    Map<String, Object> a = service("a", 3, nine());
    a.put("panicThresholdPercent", panicThresholdPercent);
    start(config(1, 3, a));
  }

  private static Object[] nine() {
    List<Object> out = new ArrayList<>();
    for (int i = 1; i <= 9; i++) {
      out.add(backend("b" + i, 9000 + i, 2));
    }
    return out.toArray();
  }

  private void fail(String id, int times) {
    for (int i = 0; i < times; i++) {
      table.onCheck(id, refused(), now);
    }
  }

  private void passAll(String... ids) {
    for (String id : ids) {
      table.onCheck(id, pass(), now);
    }
  }

  private List<String> routed() {
    return slots.service("a").memberIds();
  }

  @Test
  void onlyTheSubsetIsCheckedWhileItIsHealthy() {
    startNine(50);
    assertThat(table.subsets()).isEqualTo(Map.of("a", Set.of("b2", "b6", "b7")));
    assertThat(take()).isEqualTo("check b2 in 999, check b6 in 999, check b7 in 999");
    passAll("b2", "b6", "b7");
    assertThat(take()).isEqualTo("check b2 in 1100, check b6 in 1100, check b7 in 1100");
    assertThat(routed()).containsExactly("b2", "b6", "b7");
    assertThat(table.panicking("a")).isFalse();
    assertThat(table.backend("b1").state().jsonName()).isEqualTo("healthy");
    assertThat(table.backend("b1").reason())
        .isEqualTo("not checked outside this proxy's subsets; last: assumed healthy at start-up");
    assertThat(table.backend("b2").reason()).isEqualTo("assumed healthy at start-up");
  }

  @Test
  void twoOfThreeMembersDownPanicOverAllNineThenRecoveryEndsItAndTheOthersChecks() {
    startNine(50);
    take();
    fail("b6", 3);
    assertThat(take()).as("one more loss would panic: the six others are checked at once, unhealthy until they pass")
        .isEqualTo("check b6 in 1100, check b6 in 1100, b6 healthy->unhealthy, "
            + "b1 healthy->unhealthy, check b1 in 1, b3 healthy->unhealthy, check b3 in 1, "
            + "b4 healthy->unhealthy, check b4 in 1, b5 healthy->unhealthy, check b5 in 1, "
            + "b8 healthy->unhealthy, check b8 in 1, b9 healthy->unhealthy, check b9 in 1, check b6 in 1100");
    assertThat(table.panicking("a")).isFalse();
    assertThat(routed()).containsExactly("b2", "b6", "b7");
    assertThat(table.backend("b1").reason()).isEqualTo("checks resumed for a service near panic, waiting for a "
        + "passing check");
    for (String id : List.of("b1", "b4", "b8")) {
      table.onCheck(id, refused(), now);
    }
    passAll("b3", "b5", "b9");
    assertThat(take()).as("b1 and b4, the replacement window, fail: nothing can stand in for b6")
        .isEqualTo("check b1 in 1100, check b4 in 1100, check b8 in 1100, b3 unhealthy->healthy, check b3 in 1100, "
            + "b5 unhealthy->healthy, check b5 in 1100, b9 unhealthy->healthy, check b9 in 1100");
    assertThat(grants("a")).as("not in panic: the subset's survivors only").isEqualTo("b2 b7 b2 b7 b2 b7 b2 b7 b2");

    fail("b7", 3);
    assertThat(take()).isEqualTo("check b7 in 1100, check b7 in 1100, b7 healthy->unhealthy, panic a on, "
        + "check b7 in 1100");
    assertThat(notes).contains("service a: panic: 1 of 3 subset members healthy, below 50 %; spreading over all 9 "
        + "backends of the service");
    assertThat(table.panicking("a")).isTrue();
    assertThat(routed()).isEqualTo(ALL);
    assertThat(grants("a")).as("every healthy backend, in the subset or not").isEqualTo("b2 b3 b5 b9 b2 b3 b5 b9 b2");

    passAll("b6", "b6");
    assertThat(take()).isEqualTo("check b6 in 1100, b6 unhealthy->healthy, panic a off, check b6 in 1100");
    assertThat(notes).contains("service a: panic over: 2 of 3 subset members healthy; back to the subset");
    assertThat(routed()).containsExactly("b2", "b6", "b7");
    passAll("b7", "b7");
    assertThat(take()).isEqualTo("check b7 in 1100, b7 unhealthy->healthy, check b7 in 1100");
    passAll("b1", "b9");
    assertThat(take()).as("all three members healthy: the others' checks stop").isEqualTo("b1 unhealthy->healthy");
    assertThat(table.backend("b9").reason()).isEqualTo("not checked outside this proxy's subsets; last: passing "
        + "check after checks resumed for a service near panic");
  }

  @Test
  void aZeroThresholdNeverPanicsAndChecksOnlyTheReplacementWindow() {
    startNine(0);
    take();
    fail("b6", 3);
    fail("b7", 3);
    assertThat(take()).as("the next candidates by order, one more than the members missing")
        .isEqualTo("check b6 in 1100, check b6 in 1100, b6 healthy->unhealthy, b1 healthy->unhealthy, check b1 in 1, "
            + "b4 healthy->unhealthy, check b4 in 1, check b6 in 1100, check b7 in 1100, check b7 in 1100, "
            + "b7 healthy->unhealthy, b8 healthy->unhealthy, check b8 in 1, check b7 in 1100");
    assertThat(table.panicking("a")).isFalse();
    assertThat(routed()).containsExactly("b2", "b6", "b7");
    assertThat(grants("a")).isEqualTo("b2 b2 b2 b2 b2 b2 b2 b2 b2");
  }

  @Test
  void withoutSubsettingEveryBackendIsCheckedAndNothingPanics() {
    start(config(1, 3, service("a", 0, nine())));
    assertThat(take()).isEqualTo("check b1 in 999, check b2 in 999, check b3 in 999, check b4 in 999, "
        + "check b5 in 999, check b6 in 999, check b7 in 999, check b8 in 999, check b9 in 999");
    for (String id : List.of("b1", "b2", "b3", "b4", "b5", "b6", "b7")) {
      fail(id, 3);
    }
    assertThat(take()).doesNotContain("panic");
    assertThat(table.panicking("a")).isFalse();
    assertThat(routed()).isEqualTo(ALL);
  }

  @Test
  void aNewSubsetServesOnItsLastKnownStateAndIsCheckedAtOnce() {
    startNine(50);
    take();
    table.moveClient(2, 3, now);
    // The cluster places it now, and the cluster's default algorithm is rendezvous.
    assertThat(table.subsets().get("a")).containsExactly("b3", "b6", "b7");
    // b6 and b7 were in client 1's subset already and keep their schedules; b3 enters.
    assertThat(take()).as("optimistic, as at start-up").isEqualTo("check b3 in 1");
    assertThat(grants("a")).isEqualTo("b3 b6 b7 b3 b6 b7 b3 b6 b7");
    passAll("b2");
    assertThat(take()).as("b2 left the subset: its checks stop").isEmpty();
  }

  @Test
  void aLameDuckClearedOutsideTheSubsetGetsOneCheck() {
    startNine(50);
    take();
    table.lameDuck("b1", true, now);
    table.lameDuck("b1", false, now);
    assertThat(take()).isEqualTo("b1 healthy->lame-duck, b1 lame-duck->unhealthy, check b1 in 1");
    table.onCheck("b1", pass(), now);
    assertThat(take()).as("one check, not a schedule").isEqualTo("b1 unhealthy->healthy");
  }
}
