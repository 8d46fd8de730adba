package dev.fairway.balancer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SplitMix64Test {
  @Test
  void firstOutputOfSeedZeroIsTheReferenceValue() {
    assertThat(new SplitMix64(0).nextLong()).isEqualTo(0xE220A8397B1DCDAFL);
  }

  @Test
  void referenceSequenceOfSeed1234567() {
    SplitMix64 r = new SplitMix64(1234567);
    assertThat(Long.toUnsignedString(r.nextLong())).isEqualTo("6457827717110365317");
    assertThat(Long.toUnsignedString(r.nextLong())).isEqualTo("3203168211198807973");
    assertThat(Long.toUnsignedString(r.nextLong())).isEqualTo("9817491932198370423");
  }

  @Test
  void nextIntIsTheHighBitsTimesBound() {
    // (6457827717110365317 >>> 32) * 10 >>> 32 = 3
    assertThat(new SplitMix64(1234567).nextInt(10)).isEqualTo(3);
    SplitMix64 r = new SplitMix64(42);
    StringBuilder digits = new StringBuilder();
    for (int i = 0; i < 12; i++) {
      digits.append(r.nextInt(10));
    }
    assertThat(digits.toString()).isEqualTo("712308283624");
  }

  @Test
  void nextIntStaysInRangeAndNextDoubleBelowOne() {
    SplitMix64 r = new SplitMix64(7);
    for (int i = 0; i < 1000; i++) {
      assertThat(r.nextInt(3)).isBetween(0, 2);
      assertThat(r.nextDouble()).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
    }
    assertThatThrownBy(() -> r.nextInt(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
