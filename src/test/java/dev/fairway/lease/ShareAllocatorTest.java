package dev.fairway.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShareAllocatorTest {
  private static LinkedHashMap<String, Integer> demands(int a, int b, int c) {
    LinkedHashMap<String, Integer> d = new LinkedHashMap<>();
    d.put("a", a);
    d.put("b", b);
    d.put("c", c);
    return d;
  }

  @Test
  void skewedDemandIsWaterFilled() {
    assertThat(ShareAllocator.targets(20, demands(23, 3, 3))).isEqualTo(Map.of("a", 14, "b", 3, "c", 3));
  }

  @Test
  void anIdleClusterSplitsEvenlyRemainderFirst() {
    assertThat(ShareAllocator.targets(20, demands(0, 0, 0))).isEqualTo(Map.of("a", 7, "b", 7, "c", 6));
  }

  @Test
  void spareSlotsBeyondAllDemandAreSplitEvenly() {
    assertThat(ShareAllocator.targets(20, demands(5, 2, 1))).isEqualTo(Map.of("a", 9, "b", 6, "c", 5));
  }

  @Test
  void twoBusyMembersSplitWhatTheQuietOneLeaves() {
    assertThat(ShareAllocator.targets(20, demands(30, 30, 2))).isEqualTo(Map.of("a", 9, "b", 9, "c", 2));
  }

  @Test
  void everyMemberKeepsOneSlotHoweverBusyTheOthers() {
    assertThat(ShareAllocator.targets(3, demands(100, 100, 0))).isEqualTo(Map.of("a", 1, "b", 1, "c", 1));
  }

  @Test
  void fewerSlotsThanMembersGoToTheHighestDemand() {
    assertThat(ShareAllocator.targets(2, demands(1, 5, 5))).isEqualTo(Map.of("a", 0, "b", 1, "c", 1));
  }

  @Test
  void targetsAlwaysSumToTheCapacity() {
    for (int c = 0; c <= 40; c++) {
      for (int a = 0; a <= 25; a += 5) {
        int sum = ShareAllocator.targets(c, demands(a, 7, 1)).values().stream().mapToInt(Integer::intValue).sum();
        assertThat(sum).as("capacity %d, demand a %d", c, a).isEqualTo(c);
      }
    }
  }

  @Test
  void theStepRaisesOnlyIntoHeadroomAndLowersAtOnce() {
    assertThat(new int[] {ShareAllocator.step(20, 14, 14), ShareAllocator.step(20, 14, 10),
        ShareAllocator.step(20, 14, 3), ShareAllocator.step(20, 3, 10), ShareAllocator.step(20, 14, 25)})
        .containsExactly(6, 10, 14, 3, 0);
  }

  @Test
  void theFallbackDividesByTheLastKnownMemberCount() {
    assertThat(new int[] {ShareAllocator.fallback(20, 3), ShareAllocator.fallback(20, 1),
        ShareAllocator.fallback(2, 3), ShareAllocator.fallback(0, 3)}).containsExactly(6, 20, 1, 0);
  }
}
