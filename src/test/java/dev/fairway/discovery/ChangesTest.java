package dev.fairway.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ChangesTest {
  private static Discovered d(String id, int weight) {
    return new Discovered(id, "http://" + id + ":80", 10, weight);
  }

  @Test
  void newAndChangedBackendsArePutAndVanishedOnesRemoved() {
    Changes c = Changes.between(Map.of("a", d("a", 1), "b", d("b", 1), "c", d("c", 1)), Set.of(),
        List.of(d("b", 1), d("c", 4), d("d", 1)));
    assertThat(c).isEqualTo(new Changes(List.of(d("c", 4), d("d", 1)), List.of("a")));
  }

  @Test
  void theSameAnswerChangesNothingAndADrainingBackendWaitsUntilItIsGone() {
    assertThat(Changes.between(Map.of("a", d("a", 1)), Set.of(), List.of(d("a", 1))).none()).isTrue();
    assertThat(Changes.between(Map.of("a", d("a", 1)), Set.of("b"), List.of(d("a", 1), d("b", 1))))
        .isEqualTo(new Changes(List.of(), List.of()));
  }
}
