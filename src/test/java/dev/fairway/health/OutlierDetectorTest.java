package dev.fairway.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.config.OutlierSettings;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OutlierDetectorTest {
  private static final long SECOND = 1_000_000_000L;
  /** The clock starts 60 s before it wraps, so every comparison must be overflow-safe. */
  private static final long ORIGIN = Long.MAX_VALUE - 60 * SECOND;

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
   * Steps: {@code b1-x5} five failures of b1 ({@code HTTP 503}), {@code b1+} a success,
   * {@code t=30} the clock at 30 s, {@code tick} {@link OutlierDetector#returnDue(long)}. Events
   * read {@code eject b1 ->30} (ejected until 30 s) and {@code return b1}.
   */
  private static String run(OutlierDetector d, String script) {
    List<String> out = new ArrayList<>();
    long now = ORIGIN;
    for (String step : script.split(" ")) {
      if (step.startsWith("t=")) {
        now = ORIGIN + Long.parseLong(step.substring(2)) * SECOND;
      } else if (step.equals("tick")) {
        d.returnDue(now).forEach(e -> out.add("return " + e.backendId()));
      } else if (step.endsWith("+")) {
        d.onSuccess(step.substring(0, step.length() - 1));
      } else {
        String[] parts = step.split("-x?");
        int times = parts.length > 1 ? Integer.parseInt(parts[1]) : 1;
        for (int i = 0; i < times; i++) {
          d.onFailure(parts[0], "HTTP 503", now)
              .ifPresent(e -> out.add("eject " + e.backendId() + " ->" + (e.atNanos() - ORIGIN) / SECOND));
        }
      }
    }
    return String.join(" | ", out);
  }

  @ParameterizedTest(name = "{0} members: {1}")
  @CsvSource(delimiter = ';', nullValues = "none", textBlock = """
      3; b1-x4;                              none
      3; b1-x5;                              eject b1 ->30
      3; b1-x4 b1+ b1-x4;                    none
      3; b1-x4 b1+ b1-x5;                    eject b1 ->30
      3; b1-x5 b1-x9;                        eject b1 ->30
      3; b1-x5 t=29 tick;                    eject b1 ->30
      3; b1-x5 t=30 tick;                    eject b1 ->30 | return b1
      3; b1-x5 t=30 tick tick;               eject b1 ->30 | return b1
      3; b1-x5 t=30 tick b1-x5;              eject b1 ->30 | return b1 | eject b1 ->90
      3; b1-x5 t=30 tick b1-x5 t=90 tick b1-x5; eject b1 ->30 | return b1 | eject b1 ->90 | return b1 | eject b1 ->180
      3; b1-x5 b2-x5;                        eject b1 ->30
      3; b1-x5 b2-x5 t=30 tick b2-;          eject b1 ->30 | return b1 | eject b2 ->60
      3; b1-x5 b2-x4 b2+ t=30 tick b2-;      eject b1 ->30 | return b1
      4; b1-x5 b2-x5 b3-x5;                  eject b1 ->30 | eject b2 ->30
      2; b1-x5 b2-x5;                        eject b1 ->30
      1; b1-x50;                             none
      3; b9-x5;                              none
      3; b1-x5 t=30 tick t=329 b1-x5;        eject b1 ->30 | return b1 | eject b1 ->389
      3; b1-x5 t=30 tick t=330 b1-x5;        eject b1 ->30 | return b1 | eject b1 ->360
      """)
  void defaults(int members, String script, String events) {
    assertThat(run(detector(OutlierSettings.DEFAULTS, members), script)).isEqualTo(events == null ? "" : events);
  }

  @Test
  void ejectionGrowsByTheBaseUpToTheCap() {
    OutlierDetector d = detector(new OutlierSettings(1, 1, 30_000, 70_000, 50, 100, null), 2);
    assertThat(run(d, "b1- t=30 tick b1- t=90 tick b1- t=160 tick b1-"))
        .isEqualTo("eject b1 ->30 | return b1 | eject b1 ->90 | return b1 | eject b1 ->160 | return b1 | eject b1 ->230");
  }

  @Test
  void atLeastOneBackendStaysEvenAtOneHundredPercent() {
    OutlierSettings all = new OutlierSettings(5, 5, 30_000, 300_000, 100, 100, null);
    assertThat(run(detector(all, 2), "b1-x5 b2-x5")).isEqualTo("eject b1 ->30");
    assertThat(run(detector(new OutlierSettings(5, 5, 30_000, 300_000, 0, 100, null), 4), "b1-x5")).isEmpty();
  }

  @Test
  void reasonsNameTheCauseLengthAndCount() {
    OutlierDetector d = detector(OutlierSettings.DEFAULTS, 3);
    for (int i = 0; i < 4; i++) {
      d.onFailure("b1", "HTTP 503", 0);
    }
    assertThat(d.onFailure("b1", "connection refused", 0).orElseThrow()).isEqualTo(new OutlierEvent("b1", true,
        30 * SECOND, "5 consecutive failures, last: connection refused; ejected for 30 s (ejection 1)"));
    assertThat(d.returnDue(31 * SECOND)).containsExactly(new OutlierEvent("b1", false, 30 * SECOND, "ejection 1 ended"));
  }

  @Test
  void nextReturnIsTheEarliestEjectionEnd() {
    OutlierDetector d = detector(OutlierSettings.DEFAULTS, 4);
    assertThat(d.nextReturnNanos()).isEmpty();
    run(d, "b2-x5 t=10 b1-x5");
    assertThat((d.nextReturnNanos().orElseThrow() - ORIGIN) / SECOND).isEqualTo(30);
    assertThat(d.ejectedCount() + "/" + d.maxEjected() + " " + d.ejected("b1") + " " + d.ejected("b3"))
        .isEqualTo("2/2 true false");
  }

  @Test
  void membersLeavingAreForgottenAndShareFollowsTheMembers() {
    OutlierDetector d = detector(OutlierSettings.DEFAULTS, 3);
    run(d, "b1-x5 b2-x3");
    d.setMembers(List.of("b2", "b3", "b4", "b5"));
    assertThat(d.ejected("b1") + " " + d.ejectedCount() + "/" + d.maxEjected() + " " + d.consecutiveFailures("b2"))
        .isEqualTo("false 0/2 3");
  }

  @Test
  void rejectsNonsenseSettings() {
    assertThatThrownBy(() -> new OutlierSettings(0, 0, 30_000, 300_000, 50, 100, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new OutlierSettings(5, 5, 30_000, 10_000, 50, 100, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new OutlierSettings(5, 5, 30_000, 300_000, 101, 100, null)).isInstanceOf(IllegalArgumentException.class);
  }

  /** Steps as {@link #run}, over services' subsets, with {@code usable} telling which members take requests. */
  private static String runGroups(List<List<String>> groups, java.util.function.Predicate<String> usable, String script) {
    OutlierDetector d = new OutlierDetector(OutlierSettings.DEFAULTS);
    d.setMembers(groups.stream().flatMap(List::stream).distinct().toList());
    d.setGroups(groups);
    List<String> out = new ArrayList<>();
    for (String step : script.split(" ")) {
      String[] parts = step.split("-x");
      for (int i = 0; i < Integer.parseInt(parts[1]); i++) {
        d.onFailure(parts[0], "HTTP 500", ORIGIN, usable).ifPresent(e -> out.add("eject " + e.backendId()));
      }
    }
    return out.isEmpty() ? "none" : String.join(" | ", out);
  }

  @Test
  void theShareIsCountedPerServiceAndTheLastUsableBackendOfAServiceStays() {
    List<List<String>> two = List.of(List.of("b1"), List.of("b2", "b3", "b4"));
    assertThat(runGroups(two, m -> true, "b1-x50")).isEqualTo("none");
    assertThat(runGroups(two, m -> true, "b2-x5 b3-x5 b4-x5")).isEqualTo("eject b2");
    assertThat(runGroups(List.of(List.of("b1", "b2", "b3", "b4")), m -> true, "b1-x5 b2-x5 b3-x5")).isEqualTo("eject b1 | eject b2");
    assertThat(runGroups(List.of(List.of("b1", "b2", "b3", "b4"), List.of("b1", "b5")), m -> true, "b1-x5 b5-x5"))
        .as("shared b1: each service keeps its share").isEqualTo("eject b1");
    assertThat(runGroups(List.of(List.of("b1", "b2", "b3")), m -> m.equals("b1"), "b1-x5"))
        .as("b2 and b3 unhealthy: b1 is the last usable").isEqualTo("none");
    assertThat(runGroups(List.of(List.of("b1", "b2")), m -> true, "b9-x5")).isEqualTo("none");
  }

  @Test
  void aPassingHealthCheckEndsAnEjectionEarlyAndTheNextOneLastsLonger() {
    OutlierDetector d = detector(OutlierSettings.DEFAULTS, 3);
    assertThat(run(d, "b1-x5")).isEqualTo("eject b1 ->30");
    assertThat(d.endEarly("b1", ORIGIN + 2 * SECOND).map(OutlierEvent::reason)).contains("ejection 1 ended: health check passed");
    assertThat(d.ejected("b1")).isFalse();
    assertThat(d.endEarly("b1", ORIGIN + 3 * SECOND)).isEmpty();
    assertThat(run(d, "b1-x5")).isEqualTo("eject b1 ->60");
  }
}
