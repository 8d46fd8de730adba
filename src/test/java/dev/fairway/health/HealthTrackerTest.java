package dev.fairway.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.config.HealthCheckSettings;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HealthTrackerTest {
  /** Runs a script of {@code +} (passing check) and {@code -} (connection refused). */
  private static String run(HealthTracker tracker, String script) {
    List<String> out = new ArrayList<>();
    for (String step : script.split(" ")) {
      switch (step) {
        case "+" -> tracker.onSuccess().ifPresent(t -> out.add(t.toString()));
        case "-" -> tracker.onFailure("connection refused").ifPresent(t -> out.add(t.toString()));
        case "" -> { }
        default -> throw new IllegalArgumentException(step);
      }
    }
    return String.join(" | ", out);
  }

  @ParameterizedTest(name = "{0}/{1} initiallyHealthy={2}: {3}")
  @CsvSource(delimiter = ';', nullValues = "none", textBlock = """
      2; 3; true;  - -;           true;  none
      2; 3; true;  - - -;         false; healthy -> unhealthy: 3 consecutive failed checks: connection refused
      2; 3; true;  - - + - -;     true;  none
      2; 3; true;  - - - - - -;   false; healthy -> unhealthy: 3 consecutive failed checks: connection refused
      2; 3; true;  - - - +;       false; healthy -> unhealthy: 3 consecutive failed checks: connection refused
      2; 3; true;  - - - + +;     true;  healthy -> unhealthy: 3 consecutive failed checks: connection refused | unhealthy -> healthy: 2 consecutive passing checks
      2; 3; true;  - - - + - + +; true;  healthy -> unhealthy: 3 consecutive failed checks: connection refused | unhealthy -> healthy: 2 consecutive passing checks
      2; 3; false; '';            false; none
      2; 3; false; +;             true;  unhealthy -> healthy: first passing check
      2; 3; false; - - - - +;     true;  unhealthy -> healthy: first passing check
      2; 3; false; + - - - + +;   true;  unhealthy -> healthy: first passing check | healthy -> unhealthy: 3 consecutive failed checks: connection refused | unhealthy -> healthy: 2 consecutive passing checks
      1; 1; true;  - +;           true;  healthy -> unhealthy: 1 failed check: connection refused | unhealthy -> healthy: 1 passing check
      """)
  void thresholds(int healthy, int unhealthy, boolean initiallyHealthy, String script, boolean endsHealthy,
                  String transitions) {
    HealthTracker tracker = new HealthTracker(new HealthThresholds(healthy, unhealthy), initiallyHealthy);
    assertThat(run(tracker, script)).isEqualTo(transitions == null ? "" : transitions);
    assertThat(tracker.healthy()).isEqualTo(endsHealthy);
  }

  @Test
  void awaitPassingCheckNeedsOnePassWhateverTheThreshold() {
    HealthTracker tracker = new HealthTracker(new HealthThresholds(3, 3), true);
    assertThat(tracker.awaitPassingCheck("lame duck cleared").orElseThrow().toString())
        .isEqualTo("healthy -> unhealthy: lame duck cleared, waiting for a passing check");
    assertThat(run(tracker, "- +")).isEqualTo("unhealthy -> healthy: passing check after lame duck cleared");
    assertThat(tracker.reason()).isEqualTo("passing check after lame duck cleared");
  }

  @Test
  void countsAndReasons() {
    HealthTracker tracker = new HealthTracker(new HealthThresholds(2, 3), true);
    assertThat(tracker.reason()).isEqualTo("assumed healthy at start-up");
    run(tracker, "+ - -");
    assertThat(tracker.consecutiveSuccesses() + "/" + tracker.consecutiveFailures()).isEqualTo("0/2");
    assertThat(new HealthTracker(new HealthThresholds(2, 3), false).reason()).isEqualTo("new backend, not checked yet");
  }

  @Test
  void thresholdsComeFromConfigAndMustBePositive() {
    assertThat(HealthThresholds.of(new HealthCheckSettings("/health", 2000, 1000, 2, 3)))
        .isEqualTo(new HealthThresholds(2, 3));
    assertThatThrownBy(() -> new HealthThresholds(0, 3)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new HealthThresholds(2, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
