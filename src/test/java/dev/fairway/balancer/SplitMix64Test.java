package dev.fairway.balancer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SplitMix64Test {
  @Test
  void firstOutputOfSeedZeroIsTheReferenceValue() {
    // Reference SplitMix64 (Vigna's splitmix64.c) with x = 0 starts with 0xE220A8397B1DCDAF.
    assertThat(new SplitMix64(0).nextLong()).isEqualTo(0xE220A8397B1DCDAFL);
  }

  @Test
  void sameSeedSameDigits() {
    SplitMix64 r = new SplitMix64(42);
    StringBuilder digits = new StringBuilder();
    for (int i = 0; i < 12; i++) {
      digits.append(r.nextInt(10));
    }
    assertThat(digits.toString()).isEqualTo("131557237435");
  }

  @Test
  void nextIntStaysInRangeAndNextDoubleBelowOne() {
    SplitMix64 r = new SplitMix64(7);
    for (int i = 0; i < 10_000; i++) {
      assertThat(r.nextInt(3)).isBetween(0, 2);
      assertThat(r.nextDouble()).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
    }
    assertThatThrownBy(() -> r.nextInt(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
