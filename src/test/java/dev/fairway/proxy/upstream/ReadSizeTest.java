package dev.fairway.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReadSizeTest {
  @Test
  void aReadTakesWhatTheClientCanTakeNowBetweenOneFrameAndSixtyFourKibibytes() {
    assertThat(ReadSize.cap(0)).isEqualTo(16_384);
    assertThat(ReadSize.cap(16_383)).isEqualTo(16_384);
    assertThat(ReadSize.cap(40_000)).isEqualTo(40_000);
    assertThat(ReadSize.cap(65_536)).isEqualTo(65_536);
    assertThat(ReadSize.cap(Integer.MAX_VALUE)).isEqualTo(65_536);
  }
}
