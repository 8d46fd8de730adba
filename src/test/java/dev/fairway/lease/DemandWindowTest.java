package dev.fairway.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemandWindowTest {
  @Test
  void theDemandIsThePeakOfTheLastReadings() {
    DemandWindow w = new DemandWindow(3);
    List<Integer> peaks = new ArrayList<>();
    for (int v : new int[] {5, 9, 2, 4, 1, 1}) {
      w.record(Map.of("b1", v));
      peaks.add(w.peak("b1"));
    }
    assertThat(peaks).containsExactly(5, 9, 9, 9, 4, 4);
  }

  @Test
  void aBackendNoLongerReadIsForgotten() {
    DemandWindow w = new DemandWindow(3);
    w.record(Map.of("b1", 5, "b2", 3));
    w.record(Map.of("b2", 1));
    assertThat(new int[] {w.peak("b1"), w.peak("b2")}).containsExactly(0, 3);
  }

  @Test
  void aWindowOfAboutOneAndAHalfSecondsAtTheDefaultInterval() {
    assertThat(new int[] {DemandWindow.samplesFor(1500, 250), DemandWindow.samplesFor(1500, 400),
        DemandWindow.samplesFor(1500, 5000)}).containsExactly(6, 4, 1);
  }
}
