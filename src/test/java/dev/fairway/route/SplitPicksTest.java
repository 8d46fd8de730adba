package dev.fairway.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.HeaderRules;
import dev.fairway.config.MatchRule;
import dev.fairway.config.SplitTarget;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SplitPicks}: a split route resolves to its targets' routes by weight, one sequence per lane. */
class SplitPicksTest {
  private static final Route V1 = route("v1", List.of());
  private static final Route V2 = route("v2", List.of());

  private static Route route(String service, List<SplitTarget> split) {
    return new Route(service, new MatchRule("*", "/"), null, null, null, null, null, null, HeaderRules.NONE, split);
  }

  private static String picks(SplitPicks picks, BalancerSnapshot snapshot, Route matched, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Route r = picks.resolve(snapshot, matched);
      out.add(r == null ? "null" : r.service());
    }
    return String.join(" ", out);
  }

  @Test
  void aSplitRouteResolvesToItsTargetsAndOthersToThemselves() {
    Route canary = route("canary", List.of(new SplitTarget("v1", 3), new SplitTarget("v2", 1)));
    BalancerSnapshot snapshot = new BalancerSnapshot(1, List.of(canary, V1, V2));
    SplitPicks picks = new SplitPicks();
    assertThat(picks(picks, snapshot, canary, 8)).isEqualTo("v1 v1 v2 v1 v1 v1 v2 v1");
    assertThat(picks.resolve(snapshot, V1)).isSameAs(V1);
  }

  @Test
  void theSequenceGoesOnAcrossSnapshotsUntilTheSplitChanges() {
    Route canary = route("canary", List.of(new SplitTarget("v1", 3), new SplitTarget("v2", 1)));
    SplitPicks picks = new SplitPicks();
    assertThat(picks(picks, new BalancerSnapshot(1, List.of(canary, V1, V2)), canary, 2)).isEqualTo("v1 v1");
    Route same = route("canary", List.of(new SplitTarget("v1", 3), new SplitTarget("v2", 1)));
    assertThat(picks(picks, new BalancerSnapshot(2, List.of(same, V1, V2)), same, 2)).isEqualTo("v2 v1");
    Route flipped = route("canary", List.of(new SplitTarget("v1", 1), new SplitTarget("v2", 3)));
    assertThat(picks(picks, new BalancerSnapshot(3, List.of(flipped, V1, V2)), flipped, 4)).isEqualTo("v2 v1 v2 v2");
  }

  @Test
  void aTargetMissingFromTheSnapshotResolvesToNull() {
    Route canary = route("canary", List.of(new SplitTarget("gone", 1)));
    assertThat(picks(new SplitPicks(), new BalancerSnapshot(1, List.of(canary, V1)), canary, 1)).isEqualTo("null");
  }
}
