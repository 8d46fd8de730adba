package dev.fairway.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.balancer.Outcome;
import org.junit.jupiter.api.Test;

/**
 * The backend table's health side as event sequences: start-up, lame duck, active checks and
 * their thresholds, passive ejection and its end, load reports. See {@link TableHarness} for the
 * event lines.
 */
class BackendTableTest extends TableHarness {
  // ---- start-up

  @Test
  void startUpCountsBackendsHealthyAndSpreadsTheirFirstChecks() {
    start(config(service("a", 0, backend("b1", 9001, 2), backend("b2", 9002, 2))));
    assertThat(take()).isEqualTo("check b1 in 999, check b2 in 999");
    assertThat(state("b1") + " " + state("b2")).isEqualTo("healthy healthy");
    assertThat(notes).containsExactly("serving optimistically: 2 backends count as healthy until their first "
        + "health checks");
    assertThat(published).hasSize(1);
    assertThat(table.snapshot().route("x", "/a/1").service()).isEqualTo("a");
    assertThat(grants("a")).isEqualTo("b1 b2");
  }

  // ---- lame duck

  @Test
  void lameDuckByApiOnThenOffWaitsForAPassingCheck() {
    startAB();
    table.lameDuck("b2", true, now);
    table.lameDuck("b2", true, now);
    assertThat(take()).isEqualTo("b2 healthy->lame-duck");
    assertThat(grants("a")).isEqualTo("b1 b3 b1");
    table.onCheck("b2", pass(), now);
    assertThat(take()).as("a passing check does not undo a pushed lame duck").isEqualTo("check b2 in 1100");
    table.lameDuck("b2", false, now);
    assertThat(take()).isEqualTo("b2 lame-duck->unhealthy, check b2 now");
    table.lameDuck("b2", false, now);
    assertThat(take()).isEqualTo("check b2 now");
    table.onCheck("b2", pass(), now);
    assertThat(take()).isEqualTo("b2 unhealthy->healthy, check b2 in 1100");
    assertThat(grants("a")).isEqualTo("b2 b3 b1");
  }

  @Test
  void lameDuckHeaderEndsWithAPassingCheckWithoutIt() {
    startAB();
    table.onLameDuckHeader("b1", now);
    assertThat(take()).isEqualTo("b1 healthy->lame-duck");
    assertThat(grants("b")).isEqualTo("NO_BACKEND");
    table.onCheck("b1", new CheckOutcome(200, true, false, null, null), now);
    assertThat(take()).isEqualTo("check b1 in 1100");
    table.onCheck("b1", pass(), now);
    assertThat(take()).isEqualTo("b1 lame-duck->healthy, check b1 in 1100");
    assertThat(grants("b")).isEqualTo("b1");
  }

  @Test
  void lameDuckOfAnUnknownBackendIs404() {
    startAB();
    assertThatThrownBy(() -> table.lameDuck("b9", true, now)).isInstanceOf(CommandRejected.class)
        .hasMessage("unknown backend id b9").extracting(e -> ((CommandRejected) e).status()).isEqualTo(404);
  }

  // ---- active health checks

  @Test
  void threeFailedChecksMakeUnhealthyAndTwoPassingOnesHealthyAgain() {
    startAB();
    table.onCheck("b3", refused(), now);
    table.onCheck("b3", refused(), now);
    assertThat(state("b3")).isEqualTo("healthy");
    table.onCheck("b3", refused(), now);
    assertThat(take()).isEqualTo("check b3 in 1100, check b3 in 1100, b3 healthy->unhealthy, check b3 in 1100");
    assertThat(table.backend("b3").reason()).contains("connection refused");
    assertThat(grants("a")).isEqualTo("b1 b2 b1");
    table.onCheck("b3", pass(), now);
    table.onCheck("b3", refused(), now);
    table.onCheck("b3", pass(), now);
    assertThat(state("b3")).as("passes must be consecutive").isEqualTo("unhealthy");
    table.onCheck("b3", pass(), now);
    assertThat(take()).endsWith("b3 unhealthy->healthy, check b3 in 1100");
    assertThat(table.backend("b3").reason()).isNotBlank();
  }

  @Test
  void aHttpErrorCountsAsAFailedCheck() {
    startAB();
    for (int i = 0; i < 3; i++) {
      table.onCheck("b2", new CheckOutcome(503, false, false, null, "status 503 not in 200-299"), now);
    }
    assertThat(state("b2")).isEqualTo("unhealthy");
    assertThat(table.backend("b2").reason()).contains("status 503 not in 200-299");
  }

  // ---- passive ejection

  @Test
  void fiveFailuresEjectForThirtySecondsThenACheckLetsTheBackendBackIn() {
    startAB();
    table.onObservations(failures("b2", 4), now);
    assertThat(take()).isEmpty();
    table.onObservations(failures("b2", 1), now);
    assertThat(take()).isEqualTo("b2 healthy->ejected");
    assertThat(table.backend("b2").reason()).contains("service a: 5 consecutive 5xx").contains("ejected for 30 s");
    assertThat(grants("a")).isEqualTo("b1 b3 b1");
    assertThat(table.nextEjectionEndNanos().getAsLong() - now).isEqualTo(30 * S);
    table.endEjections(now + 30 * S - 1);
    assertThat(take()).isEmpty();
    table.endEjections(now + 30 * S);
    assertThat(take()).isEqualTo("b2 ejected->unhealthy, check b2 now");
    assertThat(table.nextEjectionEndNanos()).isEmpty();
    table.onCheck("b2", pass(), now + 31 * S);
    assertThat(take()).isEqualTo("b2 unhealthy->healthy, check b2 in 1100");
    assertThat(grants("a")).isEqualTo("b2 b3 b1");
  }

  @Test
  void aPassingCheckEndsAnEjectionEarlyAndTheNextOneLastsLonger() {
    startAB();
    table.onObservations(failures("b2", 5), now);
    table.onCheck("b2", pass(), now + S);
    assertThat(take()).isEqualTo("b2 healthy->ejected, b2 ejected->unhealthy, b2 unhealthy->healthy, "
        + "check b2 in 1100");
    table.onObservations(failures("b2", 5), now + 2 * S);
    assertThat(take()).isEqualTo("b2 healthy->ejected");
    assertThat(table.backend("b2").reason()).contains("ejected for 60 s (ejection 2)");
  }

  @Test
  void aFailingCheckDoesNotEndAnEjection() {
    startAB();
    table.onObservations(failures("b2", 5), now);
    table.onCheck("b2", refused(), now + S);
    assertThat(take()).isEqualTo("b2 healthy->ejected, check b2 in 1100");
    assertThat(state("b2")).isEqualTo("ejected");
  }

  @Test
  void aSuccessResetsTheCountAndAtMostHalfASubsetIsEjected() {
    startAB();
    table.onObservations(failures("b2", 4), now);
    table.onObservations(batch("b2", Outcome.SUCCESS, Outcome.SERVER_ERROR), now);
    table.onObservations(failures("b2", 3), now);
    assertThat(take()).as("4, then a success, then 1 + 3").isEmpty();
    table.onObservations(failures("b2", 1), now);
    table.onObservations(failures("b3", 5), now);
    assertThat(take()).as("b3 would make two of three ejected").isEqualTo("b2 healthy->ejected");
    table.onObservations(failures("b1", 5), now);
    assertThat(take()).as("b1 is service b's last usable backend").isEmpty();
  }

  // ---- load reports and scores

  @Test
  void loadReportsBecomeWeightsAfterTheBlackout() {
    startAB();
    report("b1", "TEXT cpu_utilization=0.5, rps_fractional=100", now);
    report("b2", "TEXT cpu_utilization=0.25, rps_fractional=100", now);
    table.tick(now + S);
    assertThat(weights()).as("within the 10 s blackout").isEqualTo("b1=1.0 b2=1.0 b3=1.0");
    report("b1", "TEXT cpu_utilization=0.5, rps_fractional=100", now + 11 * S);
    report("b2", "TEXT cpu_utilization=0.25, rps_fractional=100", now + 11 * S);
    table.tick(now + 11 * S);
    assertThat(weights()).as("b3 reports nothing: the mean").isEqualTo("b1=200.0 b2=400.0 b3=300.0");
    assertThat(table.backend("b2").utilization()).isEqualTo(0.25);
  }

  @Test
  void binaryReportsWeighLikeTextOnesAndAMalformedOneIsLoggedOnce() {
    startAB();
    notes.clear();
    report("b1", "BIN CQAAAAAAAOA/MQAAAAAAAFlA", now); // cpu_utilization 0.5, rps_fractional 100
    report("b2", "BIN CQAAAAAAANA/MQAAAAAAAFlA", now); // cpu_utilization 0.25
    report("b3", "BIN CQAAAAAAAOA", now);
    report("b3", "BIN ****", now);
    report("b1", "BIN CQAAAAAAAOA/MQAAAAAAAFlA", now + 11 * S);
    report("b2", "BIN CQAAAAAAANA/MQAAAAAAAFlA", now + 11 * S);
    table.tick(now + 11 * S);
    assertThat(weights()).isEqualTo("b1=200.0 b2=400.0 b3=300.0");
    assertThat(notes).containsExactly("backend b3: ignoring a malformed endpoint-load-metrics-bin report "
        + "(field truncated at byte 0); later ones are ignored without a log line");
    assertThat(table.backend("b3").badLoadReports() + " " + table.backend("b1").badLoadReports()).isEqualTo("2 0");
  }

  private void report(String id, String header, long at) {
    table.onCheck(id, new CheckOutcome(200, false, true, header, null), at);
  }

  private String weights() {
    return String.join(" ", table.backends().stream().map(b -> b.id() + "=" + Math.round(b.weight() * 10) / 10.0)
        .toList());
  }
}
