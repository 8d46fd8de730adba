package dev.fairway.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** {@code grpc-timeout}: every unit parsed, bad values refused, and the finest eight-digit encoding. */
class GrpcTimeoutTest {
  @Test
  void everyUnitParses() {
    assertThat(GrpcTimeout.parse("100m")).isEqualTo(100_000_000L);
    assertThat(Stream.of("7n", "7u", "7m", "7S", "7M", "7H").map(GrpcTimeout::parse))
        .containsExactly(7L, 7_000L, 7_000_000L, 7_000_000_000L, 420_000_000_000L, 25_200_000_000_000L);
    assertThat(GrpcTimeout.parse("0n")).isZero();
    assertThat(GrpcTimeout.parse("99999999S")).isEqualTo(99_999_999_000_000_000L);
  }

  @Test
  void aTimeoutBeyondALongIsTheLongest() {
    assertThat(GrpcTimeout.parse("99999999H")).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void malformedValuesAreRefused() {
    assertThat(Stream.of("", "m", "100", "100ms", "1x", "-1m", "+1m", " 1m", "1 m", "123456789m", "1.5S", "1h")
        .map(GrpcTimeout::parse)).containsOnly(GrpcTimeout.MALFORMED);
  }

  @Test
  void encodesInTheFinestUnitThatFitsEightDigitsRoundingDown() {
    assertThat(Stream.of(0L, 99_999_999L, 100_000_000L, 70_123_456L, 1_999_999_999L, 30_000_000_000L,
            99_999_999_999_999L, 100_000_000_000_000L, 7_200_000_000_000_000L, -5L).map(GrpcTimeout::encode))
        .containsExactly("0n", "99999999n", "100000u", "70123456n", "1999999u", "30000000u",
            "99999999m", "100000S", "7200000S", "0n");
  }

  @Test
  void encodingThenParsingNeverGrowsTheTimeout() {
    for (long t : new long[] {1, 123_456_789, 987_654_321_012L, 5_555_555_555_555_555L}) {
      long back = GrpcTimeout.parse(GrpcTimeout.encode(t));
      assertThat(back).isLessThanOrEqualTo(t).isGreaterThan(t - t / 100_000 - 1); // less than one unit, which is under t / 10^5
    }
  }
}
