package dev.fairway.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProcStatusTest {
  private static final String STATUS = "Name:\tjava\nVmPeak:\t 3018808 kB\nVmHWM:\t  261480 kB\nVmRSS:\t  254380 kB\n"
      + "Threads:\t31\nVmOdd:\t12 MB\nVmBad:\tlots kB\n";

  @Test
  void sizesAreKilobytesTimes1024() {
    assertThat(ProcStatus.bytes(STATUS, "VmRSS")).isEqualTo(254_380L * 1024);
    assertThat(ProcStatus.bytes(STATUS, "VmHWM")).isEqualTo(261_480L * 1024);
  }

  @Test
  void aFieldMissingOrNotInKilobytesIsMinusOne() {
    assertThat(ProcStatus.bytes(STATUS, "VmSwap")).isEqualTo(-1);
    assertThat(ProcStatus.bytes(STATUS, "VmOdd")).isEqualTo(-1);
    assertThat(ProcStatus.bytes(STATUS, "VmBad")).isEqualTo(-1);
    assertThat(ProcStatus.bytes(STATUS, "Threads")).isEqualTo(-1);
    assertThat(ProcStatus.bytes("", "VmRSS")).isEqualTo(-1);
  }

  @Test
  void aFieldNameIsMatchedWhole() {
    assertThat(ProcStatus.bytes("VmRSSX:\t1 kB\nVmRSS:\t2 kB\n", "VmRSS")).isEqualTo(2048);
  }
}
