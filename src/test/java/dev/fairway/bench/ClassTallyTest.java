package dev.fairway.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The load tool's per-class line, which {@code bench/overload.sh} parses field by field. */
class ClassTallyTest {
  @Test
  void countsAnswersByStatusAndTakesPercentilesOfSuccessesOnly() {
    ClassTally t = new ClassTally("critical");
    int[] statuses = {200, 200, 204, 503, 504, -1, 502, 200};
    long[] micros = {3_000, 1_000, 2_000, 9_000_000, 9_000_000, 9_000_000, 9_000_000, 4_500};
    for (int i = 0; i < statuses.length; i++) {
      t.sent();
      t.answered(statuses[i], micros[i]);
    }
    assertThat(t.line()).isEqualTo("class critical sent 8 ok 4 s503 1 s504 1 other 2 p50 2.0 p99 4.5");
  }
}
