package dev.fairway.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** W3C {@code traceparent}: what is accepted, what starts a new trace, and what Fairway sends on. */
class TraceParentTest {
  private static final String T = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String P = "00f067aa0ba902b7";

  @Test
  void valid() {
    assertThat(TraceParent.parse("00-" + T + "-" + P + "-01")).isEqualTo(new TraceParent(T, P, 1));
    assertThat(TraceParent.parse("00-" + T + "-" + P + "-00").sampled()).isFalse();
    assertThat(TraceParent.parse("00-" + T + "-" + P + "-ff")).isEqualTo(new TraceParent(T, P, 255));
    assertThat(TraceParent.parse("00-00000000000000000000000000000001-0000000000000001-01"))
        .isEqualTo(new TraceParent("00000000000000000000000000000001", "0000000000000001", 1));
  }

  @Test
  void aLaterVersionIsReadAsVersion00() {
    assertThat(TraceParent.parse("01-" + T + "-" + P + "-01")).isEqualTo(new TraceParent(T, P, 1));
    assertThat(TraceParent.parse("cc-" + T + "-" + P + "-01-what-the-future-adds")).isEqualTo(new TraceParent(T, P, 1));
    assertThat(TraceParent.parse("cc-" + T + "-" + P + "-01x")).isNull();
  }

  @Test
  void badVersion() {
    assertThat(TraceParent.parse("ff-" + T + "-" + P + "-01")).isNull();
    assertThat(TraceParent.parse("0g-" + T + "-" + P + "-01")).isNull();
    assertThat(TraceParent.parse("0A-" + T + "-" + P + "-01")).isNull();
    assertThat(TraceParent.parse("00-" + T + "-" + P + "-01-extra")).isNull(); // version 00 is exactly 55 characters
  }

  @Test
  void zeroIds() {
    assertThat(TraceParent.parse("00-00000000000000000000000000000000-" + P + "-01")).isNull();
    assertThat(TraceParent.parse("00-" + T + "-0000000000000000-01")).isNull();
  }

  @Test
  void upperCaseHex() {
    assertThat(TraceParent.parse("00-4BF92F3577B34DA6A3CE929D0E0E4736-" + P + "-01")).isNull();
    assertThat(TraceParent.parse("00-" + T + "-00F067AA0BA902B7-01")).isNull();
    assertThat(TraceParent.parse("00-" + T + "-" + P + "-0A")).isNull();
  }

  @Test
  void wrongLengthsAndSeparators() {
    assertThat(TraceParent.parse(null)).isNull();
    assertThat(TraceParent.parse("")).isNull();
    assertThat(TraceParent.parse("00-" + T.substring(1) + "-" + P + "-01")).isNull();
    assertThat(TraceParent.parse("00-" + T + "-" + P + "0-01")).isNull();
    assertThat(TraceParent.parse("00-" + T + "-" + P + "-1")).isNull();
    assertThat(TraceParent.parse("00_" + T + "-" + P + "-01")).isNull();
    assertThat(TraceParent.parse("00-" + T + "_" + P + "-01")).isNull();
    assertThat(TraceParent.parse("00-" + T + "-" + P + "_01")).isNull();
    assertThat(TraceParent.parse(" 00-" + T + "-" + P + "-01")).isNull();
  }

  @Test
  void formatWritesVersion00WithTwoHexFlags() {
    assertThat(TraceParent.format(T, "b7ad6b7169203331", 1)).isEqualTo("00-" + T + "-b7ad6b7169203331-01");
    assertThat(TraceParent.format(T, "b7ad6b7169203331", 0)).isEqualTo("00-" + T + "-b7ad6b7169203331-00");
    assertThat(TraceParent.format(T, "b7ad6b7169203331", 0xab)).isEqualTo("00-" + T + "-b7ad6b7169203331-ab");
    assertThat(TraceParent.parse(TraceParent.format(T, P, 1))).isEqualTo(new TraceParent(T, P, 1));
  }
}
