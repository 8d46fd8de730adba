package dev.fairway.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SplitMix64Test {

  @Test
  void referenceSequenceOfSeed1234567() {
    SplitMix64 r = new SplitMix64(1234567);
    assertThat(Long.toUnsignedString(r.nextLong())).isEqualTo("6457827717110365317");
    assertThat(Long.toUnsignedString(r.nextLong())).isEqualTo("3203168211198807973");
    assertThat(Long.toUnsignedString(r.nextLong())).isEqualTo("9817491932198370423");
  }

  @Test
  void nextIntIsTheHighBitsTimesBound() {
    // first value of seed 1234567 is 0x599ed017fb08fc85: high 32 bits 0x599ed017 = 1503580183;
    // 1503580183 * 10 >>> 32 = 3
    assertThat(new SplitMix64(1234567).nextInt(10)).isEqualTo(3);
  }
}
