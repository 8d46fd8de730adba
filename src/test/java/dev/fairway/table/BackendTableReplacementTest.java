package dev.fairway.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Replacement on failure (issue 25), as event sequences and the members the slot table routes
 * over. Nine backends b1..b9 with subset size 3 give client 1 of 3 the subset {@code [b2, b6, b7]}
 * and the replacement order {@code [b1, b4, b8, b3, b9, b5]}; thresholds 2/3, checks every
 * second, and (but for the panic test) {@code panicThresholdPercent} 0 so that only replacements
 * act. See {@link TableHarness} for the event lines.
 */
class BackendTableReplacementTest extends TableHarness {
  private void startNine(int panicThresholdPercent, String algorithm) {
    List<Object> nine = new ArrayList<>();
    for (int i = 1; i <= 9; i++) {
      nine.add(backend("b" + i, 9000 + i, 2));
    }
    Map<String, Object> a = service("a", 3, nine.toArray());
    a.put("panicThresholdPercent", panicThresholdPercent);
    start(BackendTableReloadTest.withAlgorithm(config(1, 3, a), algorithm));
    take();
    notes.clear();
  }

  private List<String> routed() {
    return slots.service("a").memberIds();
  }

  private String lastNote() {
    return notes.get(notes.size() - 1);
  }

  @Test
  void aLameDuckMemberIsReplacedByTheNextInOrderOnceItsFirstCheckPasses() {
    startNine(0, "book");
    table.lameDuck("b6", true, now);
    assertThat(take()).as("one missing: the next two candidates come into watch, unknown until checked")
        .isEqualTo("b6 healthy->lame-duck, b1 healthy->unhealthy, check b1 in 1, b4 healthy->unhealthy, check b4 in 1");
    assertThat(lastNote()).isEqualTo("service a: b6 lame duck, no replacement known healthy yet (checking b1, b4)");
    assertThat(routed()).containsExactly("b2", "b6", "b7");
    assertThat(table.backend("b1").reason())
        .isEqualTo("checked to stand in for an unavailable subset member, waiting for a passing check");
    table.onCheck("b4", pass(), now);
    assertThat(routed()).as("b1 is first in order and still unknown: it is waited for").containsExactly("b2", "b6", "b7");
    table.onCheck("b1", pass(), now);
    assertThat(take()).isEqualTo("b4 unhealthy->healthy, check b4 in 1100, b1 unhealthy->healthy, check b1 in 1100");
    assertThat(lastNote()).isEqualTo("service a: b6 lame duck, b1 stands in (next by subset order)");
    assertThat(routed()).containsExactly("b1", "b2", "b6", "b7");
    assertThat(grants("a")).isEqualTo("b1 b2 b7 b1 b2 b7 b1 b2 b7");
    assertThat(table.standsInFor("a", "b1")).isEqualTo("b6");
    assertThat(table.inSubset("a", "b1")).isFalse();
    assertThat(table.subsets().get("a")).containsExactly("b2", "b6", "b7");
  }

  @Test
  void twoMembersDownGetTwoReplacementsAndEachLeavesWhenItsMemberIsBack() {
    startNine(0, "book");
    table.lameDuck("b6", true, now);
    table.onCheck("b1", pass(), now);
    table.onCheck("b4", pass(), now);
    take();
    table.lameDuck("b7", true, now);
    assertThat(take()).as("b4, the spare, is known healthy: it stands in at once; b8 becomes the spare")
        .isEqualTo("b7 healthy->lame-duck, b8 healthy->unhealthy, check b8 in 1");
    assertThat(lastNote()).isEqualTo("service a: b7 lame duck, b4 stands in (next by subset order)");
    assertThat(routed()).containsExactly("b1", "b2", "b4", "b6", "b7");
    assertThat(grants("a")).isEqualTo("b1 b2 b4 b1 b2 b4 b1 b2 b4");

    table.lameDuck("b6", false, now);
    table.onCheck("b6", pass(), now);
    assertThat(lastNote()).isEqualTo("service a: b6 available again, b1 leaves (its in-flight requests finish)");
    assertThat(routed()).as("b1 stood in for b6, so b1 leaves and b4 stays").containsExactly("b2", "b4", "b6", "b7");
    assertThat(table.standsInFor("a", "b4")).isEqualTo("b7");
    table.lameDuck("b7", false, now);
    table.onCheck("b7", pass(), now);
    assertThat(routed()).containsExactly("b2", "b6", "b7");
    take();
    table.onCheck("b1", pass(), now);
    table.onCheck("b4", pass(), now);
    table.onCheck("b8", pass(), now);
    assertThat(take()).as("the subset is whole: the candidates' checks stop").isEqualTo("b8 unhealthy->healthy");
  }

  @Test
  void aReplacementThatGoesDownIsReplacedByTheNextAndAFailingCandidateIsPassedOver() {
    startNine(0, "book");
    table.lameDuck("b6", true, now);
    table.onCheck("b1", pass(), now);
    table.onCheck("b4", refused(), now);
    take();
    assertThat(routed()).containsExactly("b1", "b2", "b6", "b7");
    table.lameDuck("b1", true, now);
    assertThat(take()).as("b4 failed its check: passed over, and b8 (unknown) is waited for")
        .isEqualTo("b1 healthy->lame-duck, b8 healthy->unhealthy, check b8 in 1");
    assertThat(lastNote()).isEqualTo("service a: b1 (standing in for b6) lame duck, no replacement known healthy yet "
        + "(checking b4, b8)");
    assertThat(routed()).containsExactly("b2", "b6", "b7");
    table.onCheck("b8", pass(), now);
    assertThat(lastNote()).isEqualTo("service a: b6 lame duck, b8 stands in (next by subset order)");
    assertThat(routed()).containsExactly("b2", "b6", "b7", "b8");
  }

  @Test
  void whenTheWholeWindowIsDownTheServicePanicsAsBefore() {
    startNine(50, "book");
    for (int i = 0; i < 3; i++) {
      table.onCheck("b6", refused(), now);
    }
    take();
    assertThat(lastNote()).isEqualTo("service a: b6 unhealthy, no replacement known healthy yet (checking b1, b4)");
    for (String id : List.of("b1", "b4", "b8")) {
      table.onCheck(id, refused(), now);
    }
    for (String id : List.of("b3", "b5", "b9")) {
      table.onCheck(id, pass(), now);
    }
    assertThat(routed()).as("b1 and b4, the window, failed; b3 is healthy but outside it").containsExactly("b2", "b6",
        "b7");
    assertThat(table.panicking("a")).isFalse();
    take();
    for (int i = 0; i < 3; i++) {
      table.onCheck("b7", refused(), now);
    }
    assertThat(take()).isEqualTo("check b7 in 1100, check b7 in 1100, b7 healthy->unhealthy, panic a on, "
        + "check b7 in 1100");
    assertThat(notes).contains("service a: panic: 1 of 3 subset members healthy, below 50 %; spreading over all 9 "
        + "backends of the service");
    assertThat(grants("a")).isEqualTo("b2 b3 b5 b9 b2 b3 b5 b9 b2");
    table.onCheck("b8", pass(), now);
    assertThat(take()).as("b8 waited for a passing check: it stands in for b7 and the panic ends (2 of 3 with it)")
        .isEqualTo("b8 unhealthy->healthy, panic a off, check b8 in 1100");
    assertThat(notes).contains("service a: panic over: 2 of 3 subset members healthy (1 of them standing in); back to "
        + "the subset");
    assertThat(routed()).containsExactly("b2", "b6", "b7", "b8");
  }

  @Test
  void anEjectedMemberIsReplacedAndTheReplacementLeavesWhenTheEjectionEnds() {
    startNine(0, "book");
    table.onObservations(failures("b6", 5), now);
    assertThat(take()).isEqualTo("b6 healthy->ejected, b1 healthy->unhealthy, check b1 in 1, b4 healthy->unhealthy, "
        + "check b4 in 1");
    table.onCheck("b1", pass(), now);
    assertThat(lastNote()).isEqualTo("service a: b6 ejected, b1 stands in (next by subset order)");
    assertThat(routed()).containsExactly("b1", "b2", "b6", "b7");
    table.onCheck("b6", pass(), now);
    assertThat(lastNote()).isEqualTo("service a: b6 available again, b1 leaves (its in-flight requests finish)");
    assertThat(routed()).containsExactly("b2", "b6", "b7");
  }

  @Test
  void rendezvousTakesItsReplacementsByScore() {
    startNine(0, "rendezvous");
    assertThat(table.subsets().get("a")).containsExactly("b1", "b4", "b8");
    table.lameDuck("b4", true, now);
    assertThat(take()).isEqualTo("b4 healthy->lame-duck, b2 healthy->unhealthy, check b2 in 1, b5 healthy->unhealthy, "
        + "check b5 in 1");
    table.onCheck("b5", pass(), now);
    assertThat(lastNote()).isEqualTo("service a: b4 lame duck, b5 stands in (next by subset order)");
    assertThat(routed()).containsExactly("b1", "b4", "b5", "b8");
  }
}
