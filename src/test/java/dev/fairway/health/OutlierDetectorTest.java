package dev.fairway.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.balancer.Observation;
import dev.fairway.balancer.Outcome;
import dev.fairway.balancer.OutcomeCounts;
import dev.fairway.config.OutlierSettings;
import dev.fairway.config.OutlierSettings.SuccessRateSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OutlierDetectorTest {
  private static final long SECOND = 1_000_000_000L;
  /** The clock starts 60 s before it wraps, so every comparison must be overflow-safe. */
  private static final long ORIGIN = Long.MAX_VALUE - 60 * SECOND;
  /** Consecutive failures never eject: success rate alone. */
  private static final OutlierSettings RATE_ONLY = new OutlierSettings(1_000_000, 1_000_000, 30_000, 300_000, 50, 100,
      SuccessRateSettings.DEFAULTS);

  private static OutlierDetector detector(OutlierSettings settings, int members) {
    OutlierDetector d = new OutlierDetector(settings);
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= members; i++) {
      ids.add("b" + i);
    }
    d.setMembers(ids);
    return d;
  }

  /**
   * The observation of one period, as the tally counts it: {@code 200,500x3,503r,refused} is a
   * 200, three 500s, a 503 with {@code Retry-After} and a connect failure, in this order.
   */
  static Observation period(String id, String outcomes) {
    List<Outcome> list = new ArrayList<>();
    for (String token : outcomes.split(",")) {
      String[] parts = token.split("x");
      Outcome o = switch (parts[0]) {
        case "refused" -> Outcome.NO_ANSWER;
        case "503r" -> Outcome.OVERLOADED;
        default -> Outcome.of(Integer.parseInt(parts[0]), false);
      };
      for (int i = 0; i < (parts.length > 1 ? Integer.parseInt(parts[1]) : 1); i++) {
        list.add(o);
      }
    }
    return OutcomeCounts.of(id, list.toArray(Outcome[]::new));
  }

  /**
   * Steps: {@code b1:500x5} one period of b1 (see {@link #period}), {@code t=30} the clock at
   * 30 s, {@code tick} {@link OutlierDetector#returnDue(long)}, {@code eval}
   * {@link OutlierDetector#evaluate}, {@code pass:b1} a passing health check of b1. Events read
   * {@code eject b1 ->30} (ejected until 30 s) and {@code return b1}.
   */
  private static String run(OutlierDetector d, String script) {
    List<String> out = new ArrayList<>();
    long now = ORIGIN;
    for (String step : script.split(" ")) {
      if (step.startsWith("t=")) {
        now = ORIGIN + Long.parseLong(step.substring(2)) * SECOND;
      } else if (step.equals("tick")) {
        d.returnDue(now).forEach(e -> out.add("return " + e.backendId()));
      } else if (step.equals("eval")) {
        d.evaluate(now, OutlierDetector.Peers.ALL_USABLE).forEach(e -> out.add(eject(e)));
      } else if (step.startsWith("pass:")) {
        d.endEarly(step.substring(5), now).ifPresent(e -> out.add("return " + e.backendId()));
      } else {
        String[] parts = step.split(":");
        d.observe(period(parts[0], parts[1]), now, OutlierDetector.Peers.ALL_USABLE).ifPresent(e -> out.add(eject(e)));
      }
    }
    return out.isEmpty() ? "none" : String.join(" | ", out);
  }

  private static String eject(OutlierEvent e) {
    return "eject " + e.backendId() + " ->" + (e.atNanos() - ORIGIN) / SECOND;
  }

  @ParameterizedTest(name = "{0} members: {1}")
  @CsvSource(delimiter = ';', textBlock = """
      3; b1:500x4;                                   none
      3; b1:500x5;                                   eject b1 ->30
      3; b1:500x3 b1:500x2;                          eject b1 ->30
      3; b1:500x4 b1:200 b1:500x4;                   none
      3; b1:500x2,200,500x4;                         none
      3; b1:500x4 b1:200,500x5,200;                  eject b1 ->30
      3; b1:500x4 b1:500,200;                        eject b1 ->30
      3; b1:503x5;                                   eject b1 ->30
      3; b1:502x2,504x3;                             eject b1 ->30
      3; b1:refusedx5;                               eject b1 ->30
      3; b1:503rx50;                                 none
      3; b1:500x3,503rx9,500x2;                      eject b1 ->30
      3; b1:500x3 b1:503rx9 b1:500x2;                eject b1 ->30
      3; b1:500x4,refused b1:200,refusedx4;          none
      3; b1:500x4,refused b1:500;                    eject b1 ->30
      3; b1:refusedx4,500 b1:refused;                none
      3; b1:500x5 b1:500x9;                          eject b1 ->30
      3; b1:500x5 t=29 tick;                         eject b1 ->30
      3; b1:500x5 t=30 tick;                         eject b1 ->30 | return b1
      3; b1:500x5 t=30 tick tick;                    eject b1 ->30 | return b1
      3; b1:500x5 t=30 tick b1:500x5;                eject b1 ->30 | return b1 | eject b1 ->90
      3; b1:500x5 t=30 tick b1:500x5 t=90 tick b1:500x5; eject b1 ->30 | return b1 | eject b1 ->90 | return b1 | eject b1 ->180
      3; b1:500x5 b2:500x5;                          eject b1 ->30
      3; b1:500x5 b2:500x5 t=30 tick b2:500;         eject b1 ->30 | return b1 | eject b2 ->60
      3; b1:500x5 b2:500x4,200 t=30 tick b2:500;     eject b1 ->30 | return b1
      4; b1:500x5 b2:500x5 b3:500x5;                 eject b1 ->30 | eject b2 ->30
      2; b1:500x5 b2:500x5;                          eject b1 ->30
      1; b1:500x50;                                  none
      3; b9:500x5;                                   none
      3; b1:500x5 t=30 tick t=329 b1:500x5;          eject b1 ->30 | return b1 | eject b1 ->389
      3; b1:500x5 t=30 tick t=330 b1:500x5;          eject b1 ->30 | return b1 | eject b1 ->360
      3; b1:500x5 t=2 pass:b1 pass:b1 b1:500x5;      eject b1 ->30 | return b1 | eject b1 ->62
      """)
  void defaults(int members, String script, String events) {
    assertThat(run(detector(OutlierSettings.DEFAULTS, members), script)).isEqualTo(events);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = ';', textBlock = """
      b1:502x4,500,502x4;          none
      b1:502x3,500,502x5;          eject b1 ->30
      b1:502x4 b1:500 b1:502x4;    none
      b1:500x9;                    none
      b1:500x9,503;                eject b1 ->30
      b1:refusedx5;                eject b1 ->30
      b1:refusedx4,503r,refused;   eject b1 ->30
      """)
  void fiveXxAndGatewayThresholdsApplyApart(String script, String events) {
    OutlierSettings tenAndFive = new OutlierSettings(10, 5, 30_000, 300_000, 50, 100, null);
    assertThat(run(detector(tenAndFive, 3), script)).isEqualTo(events);
  }

  @Test
  void eachThresholdIsTheServicesOwn() {
    OutlierSettings three = new OutlierSettings(3, 5, 30_000, 300_000, 50, 100, null);
    assertThat(run(detector(three, 3), "b1:500x3")).isEqualTo("eject b1 ->30");
    assertThat(run(detector(OutlierSettings.DEFAULTS, 3), "b1:500x3")).isEqualTo("none");
    assertThat(run(detector(new OutlierSettings(5, 2, 10_000, 300_000, 50, 100, null), 3), "b1:504x2"))
        .isEqualTo("eject b1 ->10");
  }

  @Test
  void theReasonNamesTheRunLengthAndCount() {
    OutlierDetector d = detector(OutlierSettings.DEFAULTS, 3);
    assertThat(d.observe(period("b1", "500x3,502x4"), 0, OutlierDetector.Peers.ALL_USABLE).orElseThrow())
        .isEqualTo(new OutlierEvent("b1", true, 30 * SECOND, "7 consecutive 5xx; ejected for 30 s (ejection 1)"));
    assertThat(d.returnDue(31 * SECOND)).containsExactly(new OutlierEvent("b1", false, 30 * SECOND, "ejection 1 ended"));
    assertThat(d.observe(period("b2", "refusedx5"), 0, OutlierDetector.Peers.ALL_USABLE).orElseThrow().reason())
        .isEqualTo("5 consecutive gateway failures; ejected for 30 s (ejection 1)");
  }

  @Test
  void runsCarryOverPeriodsAndAreZeroAfterAnEjection() {
    OutlierDetector d = detector(OutlierSettings.DEFAULTS, 3);
    run(d, "b1:500x2,200,502x3 b2:500x5");
    assertThat(d.consecutive5xx("b1") + "/" + d.consecutiveGatewayFailures("b1")).isEqualTo("3/3");
    run(d, "b1:503r,refused");
    assertThat(d.consecutive5xx("b1") + "/" + d.consecutiveGatewayFailures("b1")).isEqualTo("3/4");
    assertThat(d.consecutive5xx("b2") + "/" + d.consecutiveGatewayFailures("b2") + " " + d.ejected("b2"))
        .isEqualTo("0/0 true");
  }

  @Test
  void aPassingHealthCheckEndsAnEjectionEarlyAndTheNextOneLastsLonger() {
    OutlierDetector d = detector(OutlierSettings.DEFAULTS, 3);
    assertThat(run(d, "b1:500x5")).isEqualTo("eject b1 ->30");
    assertThat(d.endEarly("b1", ORIGIN + 2 * SECOND).map(OutlierEvent::reason)).contains("ejection 1 ended: health check passed");
    assertThat(d.ejected("b1")).isFalse();
    assertThat(d.endEarly("b1", ORIGIN + 3 * SECOND)).isEmpty();
    assertThat(run(d, "b1:500x5")).isEqualTo("eject b1 ->60");
  }

  @Test
  void ejectionGrowsByTheBaseUpToTheCap() {
    OutlierDetector d = detector(new OutlierSettings(1, 1, 30_000, 70_000, 50, 100, null), 2);
    assertThat(run(d, "b1:500 t=30 tick b1:500 t=90 tick b1:500 t=160 tick b1:500"))
        .isEqualTo("eject b1 ->30 | return b1 | eject b1 ->90 | return b1 | eject b1 ->160 | return b1 | eject b1 ->230");
  }

  @Test
  void atLeastOneBackendStaysEvenAtOneHundredPercent() {
    OutlierSettings all = new OutlierSettings(5, 5, 30_000, 300_000, 100, 100, null);
    assertThat(run(detector(all, 2), "b1:500x5 b2:500x5")).isEqualTo("eject b1 ->30");
    assertThat(run(detector(new OutlierSettings(5, 5, 30_000, 300_000, 0, 100, null), 4), "b1:500x5")).isEqualTo("none");
  }

  @Test
  void nextReturnIsTheEarliestEjectionEnd() {
    OutlierDetector d = detector(OutlierSettings.DEFAULTS, 4);
    assertThat(d.nextReturnNanos()).isEmpty();
    run(d, "b2:500x5 t=10 b1:500x5");
    assertThat((d.nextReturnNanos().orElseThrow() - ORIGIN) / SECOND).isEqualTo(30);
    assertThat(d.ejectedCount() + "/" + d.maxEjected() + " " + d.ejected("b1") + " " + d.ejected("b3"))
        .isEqualTo("2/2 true false");
  }

  @Test
  void membersLeavingAreForgottenAndShareFollowsTheMembers() {
    OutlierDetector d = detector(OutlierSettings.DEFAULTS, 3);
    run(d, "b1:500x5 b2:500x3");
    d.setMembers(List.of("b2", "b3", "b4", "b5"));
    assertThat(d.ejected("b1") + " " + d.ejectedCount() + "/" + d.maxEjected() + " " + d.consecutive5xx("b2"))
        .isEqualTo("false 0/2 3");
  }

  @Test
  void newSettingsKeepTheEjectionsAndStartTheRunsAgain() {
    OutlierDetector d = detector(OutlierSettings.DEFAULTS, 4);
    run(d, "b1:500x5 b2:500x4");
    OutlierDetector next = d.reconfigured(new OutlierSettings(2, 2, 10_000, 300_000, 50, 100, null));
    assertThat(next.ejected("b1") + " " + next.consecutive5xx("b2") + " " + next.settings().consecutive5xx())
        .isEqualTo("true 0 2");
    assertThat(run(next, "b2:500 t=30 tick b2:500 b1:500x2"))
        .as("b1 returns at its old time; its next ejection is its second, with the new base")
        .isEqualTo("return b1 | eject b2 ->40 | eject b1 ->50");
  }

  @Test
  void rejectsNonsenseSettings() {
    assertThatThrownBy(() -> new OutlierSettings(0, 0, 30_000, 300_000, 50, 100, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new OutlierSettings(5, 5, 30_000, 10_000, 50, 100, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new OutlierSettings(5, 5, 30_000, 300_000, 101, 100, null)).isInstanceOf(IllegalArgumentException.class);
  }

  // ---- the subset, other services and the last usable member

  /** Fails {@code failing} (five 500s each, in order) in a detector over {@code subset}. */
  private static String runSubset(List<String> members, List<String> subset, OutlierDetector.Peers peers,
                                  String... failing) {
    OutlierDetector d = new OutlierDetector(OutlierSettings.DEFAULTS);
    d.setMembers(members);
    d.setGroup(subset);
    List<String> out = new ArrayList<>();
    for (String id : failing) {
      d.observe(period(id, "500x5"), ORIGIN, peers).ifPresent(e -> out.add("eject " + e.backendId()));
    }
    return out.isEmpty() ? "none" : String.join(" | ", out);
  }

  @Test
  void theShareIsCountedInTheSubsetAndTheLastUsableMemberStays() {
    List<String> four = List.of("b1", "b2", "b3", "b4");
    OutlierDetector.Peers all = OutlierDetector.Peers.ALL_USABLE;
    assertThat(runSubset(four, List.of("b2", "b3", "b4"), all, "b1", "b2", "b3")).as("b1 outside the subset")
        .isEqualTo("eject b2");
    assertThat(runSubset(four, four, all, "b1", "b2", "b3")).isEqualTo("eject b1 | eject b2");
    assertThat(runSubset(List.of("b1"), List.of("b1"), all, "b1")).isEqualTo("none");
    assertThat(runSubset(List.of("b1", "b2", "b3"), List.of("b1", "b2", "b3"), m -> m.equals("b1"), "b1"))
        .as("b2 and b3 unhealthy: b1 is the last usable").isEqualTo("none");
  }

  @Test
  void anotherServicesEjectionsCountInTheShareAndItMayVeto() {
    List<String> four = List.of("b1", "b2", "b3", "b4");
    OutlierDetector.Peers b2EjectedElsewhere = new OutlierDetector.Peers() {
      @Override
      public boolean usable(String id) {
        return !id.equals("b2");
      }

      @Override
      public boolean ejectedElsewhere(String id) {
        return id.equals("b2");
      }
    };
    assertThat(runSubset(four, four, b2EjectedElsewhere, "b1", "b3")).as("b2 and b1 make two of four")
        .isEqualTo("eject b1");
    OutlierDetector.Peers vetoB1 = new OutlierDetector.Peers() {
      @Override
      public boolean usable(String id) {
        return true;
      }

      @Override
      public boolean allowedElsewhere(String id) {
        return !id.equals("b1");
      }
    };
    assertThat(runSubset(four, four, vetoB1, "b1", "b1", "b3")).isEqualTo("eject b3");
  }

  @Test
  void canSpareAnswersForAServiceThatDoesNotEjectItself() {
    OutlierDetector d = new OutlierDetector(OutlierSettings.DEFAULTS);
    d.setMembers(List.of("b1", "b5"));
    d.setGroup(Set.of("b1", "b5"));
    assertThat(d.canSpare("b1", OutlierDetector.Peers.ALL_USABLE)).as("50 % of 2 is one").isTrue();
    assertThat(d.canSpare("b1", id -> !id.equals("b5"))).as("b5 unusable: b1 is the last").isFalse();
    assertThat(d.canSpare("b9", id -> false)).as("not in the subset").isTrue();
  }

  // ---- success rate

  /** Periods giving b1..b4 99 % of 100 answers (b3 98 %). */
  private static final String PEERS = "b1:200x99,500 b2:500,200x99 b3:200x49,500x2,200x49 b4:200x99,500";

  /** {@link #PEERS} and b5 {@code fifth} at t = 0; then {@code then}. */
  private static String rates(OutlierDetector d, String fifth, String then) {
    return run(d, PEERS + " b5:" + fifth + " " + then);
  }

  @Test
  void successRateEjectsTheMemberFarBelowItsPeersOncePerInterval() {
    OutlierDetector d = detector(RATE_ONLY, 5);
    assertThat(rates(d, "200x60,500x40", "t=9 eval")).isEqualTo("none");
    assertThat(run(d, "t=10 eval")).isEqualTo("eject b5 ->40");
    assertThat(run(d, "t=20 eval")).as("a new window: no requests since").isEqualTo("none");
  }

  @Test
  void theSuccessRateReasonShowsTheRateAndTheThreshold() {
    OutlierDetector d = detector(RATE_ONLY, 5);
    rates(d, "200x60,500x40", "t=0");
    assertThat(d.evaluate(ORIGIN + 10 * SECOND, OutlierDetector.Peers.ALL_USABLE)).extracting(OutlierEvent::reason)
        .containsExactly("success rate 60.0 % below 61.5 % (mean 91.0 %, stdev 15.5 %); ejected for 30 s (ejection 1)");
  }

  @ParameterizedTest(name = "b5 {0}")
  @CsvSource(delimiter = ';', textBlock = """
      200x60,500x39;              too few requests: four members qualify, five are needed
      200x60,500x39,503r;         the overloaded 503 is no answer a rate counts
      200x100,503rx100;           overloaded answers are no failures: 100 %
      200x97,500x3;               97 % is within 1.9 standard deviations
      """)
  void successRateLeavesAlone(String fifth, String why) {
    assertThat(rates(detector(RATE_ONLY, 5), fifth, "t=10 eval")).as(why).isEqualTo("none");
  }

  @Test
  void successRateWindowOpensAtTheFirstObservationAndOffMeansNever() {
    OutlierDetector d = detector(RATE_ONLY, 5);
    assertThat(run(d, "t=5 eval t=30 eval t=30 " + PEERS + " b5:200x60,500x40 t=39 eval t=40 eval"))
        .as("the window opened at t = 30").isEqualTo("eject b5 ->70");
    OutlierDetector off = detector(new OutlierSettings(1_000_000, 1_000_000, 30_000, 300_000, 50, 100, null), 5);
    assertThat(rates(off, "200x60,500x40", "t=10 eval")).isEqualTo("none");
  }

  @Test
  void successRateEjectsLowestFirstWithinTheShare() {
    OutlierSettings settings = new OutlierSettings(1_000_000, 1_000_000, 30_000, 300_000, 20, 100,
        new SuccessRateSettings(10_000, 5, 100, 1.0));
    OutlierDetector d = detector(settings, 10);
    StringBuilder script = new StringBuilder();
    for (int i = 1; i <= 7; i++) {
      script.append("b").append(i).append(":200x99,500 ");
    }
    script.append("b8:200x50,500x50 b9:200x60,500x40 b10:200x55,500x45 t=10 eval");
    assertThat(run(d, script.toString())).as("at most 2 of 10").isEqualTo("eject b8 ->40 | eject b10 ->40");
  }
}
