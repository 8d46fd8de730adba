package dev.fairway.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.SplitTarget;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link WeightedSplit}: nginx's smooth weighted round robin, pinned pick by pick. */
class WeightedSplitTest {
  private static String picks(WeightedSplit w, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(w.next());
    }
    return String.join(" ", out);
  }

  @Test
  void fiveOneOneIsNginxsSequenceOverAndOver() {
    WeightedSplit w = new WeightedSplit(List.of(new SplitTarget("v1", 5), new SplitTarget("v2", 1),
        new SplitTarget("v3", 1)));
    assertThat(picks(w, 14)).isEqualTo("v1 v1 v2 v1 v3 v1 v1 v1 v1 v2 v1 v3 v1 v1");
  }

  @Test
  void ninetyFiveFiveSpreadsTheCanaryAndIsExactPerHundred() {
    WeightedSplit w = new WeightedSplit(List.of(new SplitTarget("v1", 95), new SplitTarget("v2", 5)));
    List<Integer> canary = new ArrayList<>();
    for (int i = 1; i <= 200; i++) {
      if (w.next().equals("v2")) {
        canary.add(i);
      }
    }
    assertThat(canary).containsExactly(11, 31, 51, 71, 91, 111, 131, 151, 171, 191);
  }

  @Test
  void equalWeightsAlternateInTheGivenOrderAndOneTargetTakesAll() {
    assertThat(picks(new WeightedSplit(List.of(new SplitTarget("a", 1), new SplitTarget("b", 1))), 5))
        .isEqualTo("a b a b a");
    assertThat(picks(new WeightedSplit(List.of(new SplitTarget("only", 7))), 3)).isEqualTo("only only only");
  }
}
