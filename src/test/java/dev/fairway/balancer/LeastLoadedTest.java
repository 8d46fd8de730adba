package dev.fairway.balancer;

import static dev.fairway.balancer.Picks.MS;
import static dev.fairway.balancer.Picks.S;
import static dev.fairway.balancer.Picks.actives;
import static dev.fairway.balancer.Picks.complete;
import static dev.fairway.balancer.Picks.members;
import static dev.fairway.balancer.Picks.picks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayDeque;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeastLoadedTest {

  @Test
  void booksExampleT0ToT9() {
    List<Endpoint> m = members("t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9");
    int[] active = {2, 1, 0, 0, 1, 0, 2, 0, 0, 1};
    for (int i = 0; i < active.length; i++) {
      m.get(i).setActive(active[i]);
    }
    LeastLoaded s = new LeastLoaded();
    assertThat(picks(s, m, 1)).isEqualTo("t2");
    assertThat(actives(m)).isEqualTo("2 1 1 0 1 0 2 0 0 1");
    assertThat(picks(s, m, 4)).isEqualTo("t3 t5 t7 t8");
    assertThat(actives(m)).isEqualTo("2 1 1 1 1 1 2 1 1 1");
    complete(s, m.get(4), 5 * MS, false, 0);
    assertThat(picks(s, m, 1)).isEqualTo("t4");
    // then round robin over everybody at 1, t0 and t6 (at 2) joining only once all reach 2
    assertThat(picks(s, m, 10)).isEqualTo("t5 t7 t8 t9 t1 t2 t3 t4 t5 t6");
  }

  @Test
  void skipsUnavailableAndFullMembersMidStream() {
    List<Endpoint> m = members("W1", "W2", "W3");
    LeastLoaded s = new LeastLoaded();
    assertThat(picks(s, m, 3)).isEqualTo("W1 W2 W3");
    m.get(1).setAvailable(false);
    assertThat(picks(s, m, 3)).isEqualTo("W1 W3 W1");
    m.get(1).setAvailable(true);
    m.get(2).setCapacity(3);
    assertThat(picks(s, m, 4)).isEqualTo("W2 W3 W2 W1");
    assertThat(actives(m)).isEqualTo("4 3 3");
    m.get(0).setCapacity(4);
    m.get(1).setCapacity(3);
    assertThat(picks(s, m, 2)).isEqualTo("- -");
  }

  @Test
  void aRecentErrorCountsAsAnActiveRequestForWindowTimesLn2() {
    List<Endpoint> m = members("W1", "W2", "W3");
    LeastLoaded s = new LeastLoaded();
    s.reset(m);
    s.onComplete(m.get(1), MS, true, 0);
    assertThat(s.errors(m.get(1), 1 * S)).isCloseTo(Math.exp(-0.1), within(1e-9));
    // at 1 s W2 counts as 1 active: the idle W1 and W3 first, then round robin at 1
    assertThat(picks(s, m, 5, 1 * S)).isEqualTo("W1 W3 W1 W2 W3");

    List<Endpoint> m6 = members("W1", "W2", "W3");
    LeastLoaded s6 = new LeastLoaded();
    s6.reset(m6);
    s6.onComplete(m6.get(1), MS, true, 0);
    assertThat(picks(s6, m6, 3, 6 * S)).isEqualTo("W1 W3 W1"); // e^-0.6 = 0.55 rounds to 1

    List<Endpoint> m7 = members("W1", "W2", "W3");
    LeastLoaded s7 = new LeastLoaded();
    s7.reset(m7);
    s7.onComplete(m7.get(1), MS, true, 0);
    assertThat(picks(s7, m7, 3, 7 * S)).isEqualTo("W1 W2 W3"); // e^-0.7 = 0.50 rounds to 0
  }

  @Test
  void successesDoNotCountAndWindowZeroIgnoresErrors() {
    List<Endpoint> m = members("W1", "W2");
    LeastLoaded s = new LeastLoaded(0);
    s.reset(m);
    s.onComplete(m.get(0), MS, true, 0);
    assertThat(picks(s, m, 2, 0)).isEqualTo("W1 W2");
    LeastLoaded ok = new LeastLoaded();
    List<Endpoint> m2 = members("W1", "W2");
    ok.reset(m2);
    ok.onComplete(m2.get(0), MS, false, 0);
    assertThat(picks(ok, m2, 2, 0)).isEqualTo("W1 W2");
  }

  @Test
  void manyErrorsRebaseWithoutLosingCount() {
    List<Endpoint> m = members("W1", "W2");
    LeastLoaded s = new LeastLoaded(S);
    s.reset(m);
    s.onComplete(m.get(0), MS, true, 0);
    s.onComplete(m.get(0), MS, true, 100 * S); // 100 windows later: rebases
    s.onComplete(m.get(0), MS, true, 100 * S);
    assertThat(s.errors(m.get(0), 100 * S)).isCloseTo(2.0, within(1e-9));
    assertThat(s.errors(m.get(0), 101 * S)).isCloseTo(2 * Math.exp(-1), within(1e-9));
  }

  @Test
  void countsKeptBeforeARebaseStillDecayRightly() {
    List<Endpoint> m = members("W1", "W2", "W3");
    LeastLoaded s = new LeastLoaded(S);
    s.reset(m);
    s.onComplete(m.get(2), MS, true, 0); // the first reference: 0 (W3's error is gone 30 windows later)
    for (int i = 0; i < 3; i++) {
      s.onComplete(m.get(0), MS, true, 29_500 * MS); // three errors, kept against that reference
    }
    s.onComplete(m.get(1), MS, true, 30_500 * MS); // 30.5 windows in: the reference moves
    assertThat(s.errors(m.get(0), 30_500 * MS)).isCloseTo(3 * Math.exp(-1), within(1e-9));
    // W1 3/e = 1.1 and W2 1 count as one active request each, W3 none
    assertThat(picks(s, m, 4, 30_500 * MS)).isEqualTo("W3 W1 W2 W3");
  }

  /**
   * One request a millisecond for 20 s; W1 and W2 answer in 30 ms, W3 fails in 1 ms. Without
   * error counting W3 is nearly always idle and takes most requests (sinkholing); with it, W3's
   * recent errors outweigh the others' active requests and it gets a small minority.
   */
  @Test
  void aFastFailingBackendCannotSinkholeTraffic() {
    assertThat(sinkholeShare(new LeastLoaded(0))).isGreaterThan(0.5);
    assertThat(sinkholeShare(new LeastLoaded())).isLessThan(0.05);
  }

  private static double sinkholeShare(LeastLoaded s) {
    List<Endpoint> m = members("W1", "W2", "W3");
    record Flight(Endpoint e, long end) {
    }
    ArrayDeque<Flight> flights = new ArrayDeque<>();
    int w3 = 0;
    int total = 20_000;
    for (int t = 0; t < total; t++) {
      long now = t * MS;
      for (int k = flights.size(); k > 0; k--) {
        Flight f = flights.poll();
        if (f.end() <= now) {
          complete(s, f.e(), f.e() == m.get(2) ? MS : 30 * MS, f.e() == m.get(2), now);
        } else {
          flights.add(f);
        }
      }
      Endpoint e = s.pick(m, now);
      e.setActive(e.active() + 1);
      boolean failing = e == m.get(2);
      w3 += failing ? 1 : 0;
      flights.add(new Flight(e, now + (failing ? MS : 30 * MS)));
    }
    return (double) w3 / total;
  }
}
