package dev.fairway.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A member that loses the lease map (a partition) uses capacity ÷ the last member count it knew. */
class FallbackTest {
  @Test
  void aPartitionedMemberUsesCapacityOverTheLastKnownMemberCountUntilTheMapAnswers() {
    Fallback f = new Fallback();
    Map<String, Integer> capacities = new LinkedHashMap<>();
    capacities.put("b1", 20);
    capacities.put("b2", 2);
    List<Object> seen = List.of(f.reached(3), f.unreachable(capacities), f.entered(), f.unreachable(capacities),
        f.entered(), f.active(), f.reached(2), f.active(), f.unreachable(capacities));
    assertThat(seen).containsExactly(false, Map.of("b1", 6, "b2", 1), true, Map.of("b1", 6, "b2", 1), false, true,
        true, false, Map.of("b1", 10, "b2", 1));
  }
}
