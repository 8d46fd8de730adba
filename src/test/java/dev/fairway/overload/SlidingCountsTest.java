package dev.fairway.overload;

import static dev.fairway.overload.ThrottleSimulation.MS;
import static dev.fairway.overload.ThrottleSimulation.S;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SlidingCountsTest {

  @Test
  void theJavadocExampleBucketsLeaveWhole() {
    SlidingCounts c = new SlidingCounts(10 * S, 10, 1);
    c.add(0, 500 * MS, 1);
    c.add(0, 3_200 * MS, 1);
    assertThat(c.total(0, 9_900 * MS) + " " + c.total(0, 10 * S) + " " + c.total(0, 13 * S)).isEqualTo("2 1 0");
  }

  @Test
  void aLongPauseEmptiesTheWindowAndTimeNeverRunsBackwards() {
    SlidingCounts c = new SlidingCounts(10 * S, 10, 2);
    c.add(1, 0, 5);
    c.add(1, 4 * S, 2);
    assertThat(c.total(1, 5 * S)).isEqualTo(7);
    c.add(1, 2 * S, 1);
    assertThat(c.total(1, 13 * S) + " " + c.total(0, 13 * S) + " " + c.total(1, 1_000 * S)).isEqualTo("3 0 0");
    c.add(1, 1_000 * S, 4);
    assertThat(c.total(1, 1_009 * S)).isEqualTo(4);
  }
}
