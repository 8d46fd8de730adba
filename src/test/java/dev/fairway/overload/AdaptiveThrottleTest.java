package dev.fairway.overload;

import static dev.fairway.overload.Criticality.CRITICAL;
import static dev.fairway.overload.Criticality.CRITICAL_PLUS;
import static dev.fairway.overload.Criticality.SHEDDABLE;
import static dev.fairway.overload.Criticality.SHEDDABLE_PLUS;
import static dev.fairway.overload.ThrottleSimulation.MS;
import static dev.fairway.overload.ThrottleSimulation.S;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AdaptiveThrottleTest {
  private static final long WINDOW = 10 * S;

  /** {@code count} requests of class {@code c} at {@code now}, each with {@code random01}: "+" admitted, "-" refused. */
  private static String admits(AdaptiveThrottle t, Criticality c, int count, long now, double random01) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < count; i++) {
      b.append(t.admit(c, now, random01) ? '+' : '-');
    }
    return b.toString();
  }

  private static void accepts(AdaptiveThrottle t, int count, long now) {
    for (int i = 0; i < count; i++) {
      t.accepted(now);
    }
  }

  private static String rounded(double... values) {
    StringBuilder b = new StringBuilder();
    for (double v : values) {
      b.append(b.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.3f", v));
    }
    return b.toString();
  }

  private static String classProbabilities(AdaptiveThrottle t, long now) {
    return rounded(t.rejectProbability(SHEDDABLE, now), t.rejectProbability(SHEDDABLE_PLUS, now),
        t.rejectProbability(CRITICAL, now), t.rejectProbability(CRITICAL_PLUS, now));
  }

  @Test
  void theJavadocExampleThirtyNinePercentFromSheddableOnly() {
    AdaptiveThrottle t = new AdaptiveThrottle(2, WINDOW);
    accepts(t, 30, 0);
    assertThat(admits(t, SHEDDABLE, 20, 0, 0) + admits(t, CRITICAL, 40, 0, 0) + admits(t, SHEDDABLE, 39, 0, 0))
        .isEqualTo("+".repeat(61) + "-".repeat(38));
    assertThat(t.requests(0) + " " + t.attempts(0) + " " + t.accepts(0)).isEqualTo("99 61 30");
    assertThat(rounded(t.rejectProbability(0))).isEqualTo("0.390");
    assertThat(classProbabilities(t, 0)).isEqualTo("0.650 0.000 0.000 0.000");
  }

  @Test
  void atEightyPercentSheddableAlwaysAndCriticalTakesTheRest() {
    AdaptiveThrottle t = new AdaptiveThrottle(2, WINDOW);
    accepts(t, 2, 0);
    assertThat(admits(t, CRITICAL, 5, 0, 0) + admits(t, SHEDDABLE, 14, 0, 0) + admits(t, CRITICAL, 5, 0, 0.999))
        .isEqualTo("+++++" + "-".repeat(14) + "+++++");
    assertThat(rounded(t.rejectProbability(0))).isEqualTo("0.800");
    // sheddable 15/25 of the window with the newcomer; a critical newcomer: (0.8 - 14/25) / (11/25)
    assertThat(classProbabilities(t, 0)).isEqualTo("1.000 1.000 0.545 0.000");
  }

  @Test
  void seededSequenceAgainstABackendThatStopsAccepting() {
    AdaptiveThrottle t = new AdaptiveThrottle(2, WINDOW);
    SplittableRandom r = new SplittableRandom(7);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      boolean admitted = t.admit(i % 2 == 0 ? SHEDDABLE : CRITICAL, i * MS, r.nextDouble());
      b.append(admitted ? '+' : '-');
      if (admitted && i < 8) {
        t.accepted(i * MS);
      }
    }
    assertThat(b.toString()).isEqualTo("++++++++++++++++++++++-+++-+++++-+-+-+-+");
  }

  @Test
  void countsLeaveTheWindowInTwentieths() {
    AdaptiveThrottle t = new AdaptiveThrottle(2, WINDOW);
    admits(t, CRITICAL, 3, 0, 0.5);
    accepts(t, 1, 0);
    admits(t, CRITICAL, 2, 2 * S, 0.999);
    accepts(t, 2, 2 * S);
    StringBuilder b = new StringBuilder();
    // 0.5 s buckets: the requests at 0 leave at 10 s, those at 2 s at 12 s
    for (long at : new long[] {0, 9_999 * MS, 10_000 * MS, 11_999 * MS, 12_000 * MS}) {
      b.append(t.requests(at)).append('/').append(t.accepts(at)).append(' ');
    }
    assertThat(b.toString().trim()).isEqualTo("5/3 5/3 2/2 2/2 0/0");
  }

  @Test
  void aWindowWithoutAttemptsLetsAProbeThrough() {
    AdaptiveThrottle t = new AdaptiveThrottle(2, WINDOW);
    admits(t, CRITICAL, 1, 0, 0);
    // the one attempt failed; everything after it is refused until it leaves the window
    assertThat(admits(t, CRITICAL, 5, 5 * S, 0)).isEqualTo("-----");
    assertThat(admits(t, CRITICAL, 3, WINDOW, 0)).isEqualTo("+--");
    AdaptiveThrottle book = AdaptiveThrottle.bookFormula(2, WINDOW);
    admits(book, CRITICAL, 1, 0, 0);
    admits(book, CRITICAL, 5, 5 * S, 0);
    assertThat(admits(book, CRITICAL, 3, WINDOW, 0)).isEqualTo("---");
  }

  @Test
  void refusedRequestsWeighLessAsMoreAttemptsAreAccepted() {
    AdaptiveThrottle t = new AdaptiveThrottle(2, WINDOW);
    AdaptiveThrottle book = AdaptiveThrottle.bookFormula(2, WINDOW);
    for (AdaptiveThrottle x : new AdaptiveThrottle[] {t, book}) {
      assertThat(admits(x, CRITICAL, 10, 0, 0.999) + admits(x, CRITICAL, 30, 0, 0))
          .isEqualTo("+".repeat(10) + "-".repeat(30));
    }
    StringBuilder b = new StringBuilder();
    for (int accepted = 0; accepted <= 10; accepted += 2) {
      b.append(rounded(t.rejectProbability(0), book.rejectProbability(0))).append(" | ");
      accepts(t, 2, 0);
      accepts(book, 2, 0);
    }
    // 10 attempts, 30 refused, accepts 0 2 4 6 8 10: refused requests weigh 1 1 1 0.8 0.4 0
    assertThat(b.toString()).isEqualTo("0.976 0.976 | 0.878 0.878 | 0.780 0.780 | 0.629 0.683 | 0.261 0.585 | "
        + "0.000 0.488 | ");
  }

  @Test
  void kMustBeAboveOne() {
    assertThatThrownBy(() -> new AdaptiveThrottle(1, WINDOW)).hasMessageContaining("above 1: 1.0");
    assertThatThrownBy(() -> new AdaptiveThrottle(Double.NaN, WINDOW)).hasMessageContaining("above 1");
  }

  /** Backends that accept a quarter of the offered load are sent about twice that: k times their accepts. */
  @Test
  void aBackendOfAQuarterOfTheLoadGetsAboutKTimesItsAccepts() {
    StringBuilder pinned = new StringBuilder();
    for (long seed = 1; seed <= 5; seed++) {
      AdaptiveThrottle t = new AdaptiveThrottle(2, WINDOW);
      ThrottleSimulation sim = new ThrottleSimulation(t, seed);
      sim.run(6 * WINDOW, 25);
      long now = sim.now();
      assertThat((double) t.attempts(now) / t.accepts(now)).as("seed " + seed).isBetween(1.8, 2.5);
      pinned.append(t.requests(now)).append('/').append(t.attempts(now)).append('/').append(t.accepts(now)).append(' ');
    }
    assertThat(pinned.toString()).isEqualTo("950/456/225 950/488/226 950/474/226 950/483/226 950/501/231 ");
  }

  /**
   * A backend that answers overload to everything for three windows is sent one or two requests a
   * window; once healed it gets all traffic back within a window. The book's counts take 3 to 7
   * windows here (and 5 to 9 with the default two minutes at 100 requests a second).
   */
  @Test
  void aFailedBackendGetsATrickleAndAllTrafficWithinAWindowOfHealing() {
    StringBuilder pinned = new StringBuilder();
    for (long seed = 1; seed <= 5; seed++) {
      AdaptiveThrottle t = new AdaptiveThrottle(2, WINDOW);
      AdaptiveThrottle book = AdaptiveThrottle.bookFormula(2, WINDOW);
      long[] recovered = new long[2];
      for (int i = 0; i < 2; i++) {
        AdaptiveThrottle x = i == 0 ? t : book;
        ThrottleSimulation sim = new ThrottleSimulation(x, seed);
        sim.run(WINDOW, 1000);
        sim.run(3 * WINDOW, 0);
        assertThat(x.requests(sim.now())).isEqualTo(950);
        assertThat(x.attempts(sim.now())).as("seed " + seed).isLessThanOrEqualTo(2);
        recovered[i] = sim.run(10 * WINDOW, 1000).lastRefusalNanos();
      }
      assertThat(recovered[0]).as("seed " + seed).isLessThan(WINDOW);
      assertThat(recovered[1]).as("seed " + seed).isGreaterThan(3 * WINDOW);
      pinned.append(recovered[0] / MS).append(' ').append(recovered[1] / MS).append(" | ");
    }
    assertThat(pinned.toString()).isEqualTo("2990 56820 | 3990 70730 | 3990 62220 | 6490 48750 | 0 31400 | ");
  }

  /** Requests in flight count nowhere: a burst after a quiet spell is let on until answers say otherwise. */
  @Test
  void requestsCountedWhenAnsweredLetABurstThroughAfterAQuietSpell() {
    AdaptiveThrottle t = new AdaptiveThrottle(2, WINDOW);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 10; i++) {
      b.append(t.decide(SHEDDABLE, 0, 0) ? '+' : '-');
    }
    for (int i = 0; i < 10; i++) {
      t.count(SHEDDABLE, MS, true); // all ten answered with an overload signal
    }
    b.append(' ').append(t.decide(SHEDDABLE, MS, 0.9) ? '+' : '-');
    t.count(SHEDDABLE, MS, false);
    assertThat(b.toString()).isEqualTo("++++++++++ -");
    assertThat(t.requests(MS) + "/" + t.attempts(MS) + "/" + t.accepts(MS)).isEqualTo("11/10/0");
  }

  @Test
  void fewerRequestsThanTheMinimumNeverThrottle() {
    AdaptiveThrottle t = new AdaptiveThrottle(2, WINDOW, 4);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 6; i++) {
      boolean admitted = t.decide(CRITICAL, 0, 0.1);
      b.append(admitted ? '+' : '-');
      t.count(CRITICAL, 0, admitted); // every attempt answered with an overload signal
    }
    assertThat(b.toString()).isEqualTo("++++--");
  }
}
