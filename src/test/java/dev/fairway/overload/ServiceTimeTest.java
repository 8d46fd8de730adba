package dev.fairway.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ServiceTimeTest {
  private static final long MS = 1_000_000L;

  @Test
  void saysNothingUntilTenSamplesThenTheirValue() {
    ServiceTime t = new ServiceTime(0.25);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 11; i++) {
      b.append(t.nanos() / MS).append(' ');
      t.sample(100 * MS);
    }
    assertThat(b.toString().trim()).isEqualTo("0 0 0 0 0 0 0 0 0 0 100");
  }

  @Test
  void aBimodalServiceSettlesNearItsFastMode() {
    ServiceTime t = new ServiceTime(0.25);
    for (int i = 0; i < 400; i++) {
      t.sample(i % 2 == 0 ? 10 * MS : 1000 * MS);
    }
    assertThat(t.nanos() / MS).isBetween(10L, 20L);
  }

  @Test
  void followsAQuarterOfAUniformSpreadAndMovesWhenTheServiceSlowsDown() {
    ServiceTime t = new ServiceTime(0.25);
    SplittableRandom r = new SplittableRandom(3);
    for (int i = 0; i < 2000; i++) {
      t.sample((long) (r.nextDouble(100, 200) * MS));
    }
    long before = t.nanos() / MS;
    for (int i = 0; i < 400; i++) {
      t.sample((long) (r.nextDouble(400, 500) * MS));
    }
    assertThat(before + " " + t.nanos() / MS).isEqualTo("132 447"); // the quartiles are 125 and 425
  }

  @Test
  void theQuantileMustBeBetweenZeroAndOne() {
    assertThatThrownBy(() -> new ServiceTime(1)).hasMessageContaining("(0, 1): 1.0");
  }

  /** A fast path (health checks, say) then a slow one: about 95 slow answers bring it up a hundredfold. */
  @Test
  void climbsFromAFastPathToASlowOneInAboutAHundredAnswers() {
    ServiceTime t = new ServiceTime(0.25);
    for (int i = 0; i < 1000; i++) {
      t.sample(MS);
    }
    int n = 0;
    while (t.nanos() < 100 * MS) {
      t.sample(100 * MS);
      n++;
    }
    assertThat(n).isEqualTo(95);
  }
}
