package dev.fairway.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LeaseBookTest {
  private static final List<String> LIVE = List.of("a", "b", "c");

  @Test
  void aFirstRenewalOfAnEmptyEntryTakesItsEvenPartOfTheLiveMembers() {
    LeaseBook.Renewal r = LeaseBook.renew(Map.of(), "b", 20, 0, 0, 5, LIVE);
    assertThat(r).isEqualTo(new LeaseBook.Renewal(Map.of("b", new Holding(7, 0, 0, 5)), 7));
  }

  @Test
  void theBusyMemberWaitsForTheOthersToLowerTheirShares() {
    Map<String, Holding> entry = Map.of("a", new Holding(7, 7, 7, 0), "b", new Holding(7, 2, 3, 0),
        "c", new Holding(6, 1, 3, 0));
    LeaseBook.Renewal a1 = LeaseBook.renew(entry, "a", 20, 7, 23, 250, LIVE);
    LeaseBook.Renewal b = LeaseBook.renew(a1.holdings(), "b", 20, 2, 3, 260, LIVE);
    LeaseBook.Renewal c = LeaseBook.renew(b.holdings(), "c", 20, 1, 3, 270, LIVE);
    LeaseBook.Renewal a2 = LeaseBook.renew(c.holdings(), "a", 20, 7, 23, 500, LIVE);
    assertThat(new int[] {a1.share(), b.share(), c.share(), a2.share()}).containsExactly(7, 3, 3, 14);
  }

  @Test
  void inFlightRequestsAboveALoweredShareStillCountAgainstTheHeadroom() {
    Map<String, Holding> entry = Map.of("a", new Holding(6, 6, 23, 0), "b", new Holding(3, 7, 3, 0),
        "c", new Holding(3, 3, 3, 0));
    assertThat(LeaseBook.renew(entry, "a", 20, 6, 23, 250, LIVE).share()).isEqualTo(10);
  }

  @Test
  void aMemberThatDoesNotUseTheBackendLeavesAllOfItToThoseThatDo() {
    Map<String, Holding> entry = Map.of("a", new Holding(7, 7, 23, 0), "b", new Holding(7, 3, 3, 0),
        "c", new Holding(6, 0, 0, 0));
    LeaseBook.Renewal c = LeaseBook.renew(entry, "c", 20, 0, 0, 250, LIVE, false);
    LeaseBook.Renewal a1 = LeaseBook.renew(c.holdings(), "a", 20, 7, 23, 260, LIVE, true);
    LeaseBook.Renewal b = LeaseBook.renew(a1.holdings(), "b", 20, 3, 3, 270, LIVE, true);
    LeaseBook.Renewal a2 = LeaseBook.renew(b.holdings(), "a", 20, 13, 23, 500, LIVE, true);
    assertThat(new int[] {c.share(), a1.share(), b.share(), a2.share()}).containsExactly(0, 13, 3, 17);
  }

  @Test
  void membersThatLeftAreDroppedAndTheirSlotsReused() {
    Map<String, Holding> entry = Map.of("a", new Holding(7, 7, 30, 0), "b", new Holding(7, 7, 30, 0),
        "gone", new Holding(6, 6, 30, 0));
    LeaseBook.Renewal r = LeaseBook.renew(entry, "a", 20, 7, 30, 250, List.of("a", "b"));
    assertThat(r.holdings().keySet()).containsExactlyInAnyOrder("a", "b");
    assertThat(r.share()).isEqualTo(10);
  }

  @Test
  void theSharesNeverSumAboveTheCapacityWhileDemandShifts() {
    Map<String, Holding> entry = new HashMap<>();
    int[][] demands = {{0, 0, 0}, {40, 2, 2}, {40, 2, 2}, {2, 40, 2}, {2, 40, 2}, {2, 2, 40}, {15, 15, 15}, {15, 15, 15}, {15, 15, 15}};
    for (int[] round : demands) {
      for (int i = 0; i < 3; i++) {
        String m = LIVE.get(i);
        Holding h = entry.get(m);
        int inUse = h == null ? 0 : Math.min(h.share(), round[i]);
        entry = new HashMap<>(LeaseBook.renew(entry, m, 20, inUse, round[i], 0, LIVE).holdings());
        int claims = entry.values().stream().mapToInt(Holding::claim).sum();
        assertThat(claims).as("claims after %s renewed in round %s", m, java.util.Arrays.toString(round))
            .isLessThanOrEqualTo(20);
      }
    }
    assertThat(entry.values().stream().map(Holding::share).toList()).containsExactlyInAnyOrder(7, 7, 6);
  }
}
