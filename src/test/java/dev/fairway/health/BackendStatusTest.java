package dev.fairway.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BackendStatusTest {
  /**
   * Steps: {@code ok} / {@code 503} health check with that status, {@code ok+ld} / {@code 503+ld}
   * the same with {@code Lame-Duck: true}, {@code refused} a check without response, {@code hdr}
   * a proxied response with the header, {@code post} / {@code delete} the lame-duck API,
   * {@code eject} / {@code return} passive ejection, {@code drain} removal; {@code met} /
   * {@code lacks} a check answer judged by a service's expectation (met, or failed with
   * {@code body lacks "ok"}), {@code lacks+ld} the latter with {@code Lame-Duck: true}.
   */
  private static String run(BackendStatus s, String script) {
    List<String> out = new ArrayList<>();
    for (String step : script.split(" ")) {
      var t = switch (step) {
        case "ok" -> s.onCheckResponse(200, false);
        case "ok+ld" -> s.onCheckResponse(200, true);
        case "503" -> s.onCheckResponse(503, false);
        case "503+ld" -> s.onCheckResponse(503, true);
        case "refused" -> s.onCheckFailure("connection refused");
        case "met" -> s.onCheckResponse((String) null, false);
        case "lacks" -> s.onCheckResponse("body lacks \"ok\"", false);
        case "lacks+ld" -> s.onCheckResponse("body lacks \"ok\"", true);
        case "hdr" -> s.onLameDuckHeader();
        case "post" -> s.enterLameDuck();
        case "delete" -> s.leaveLameDuck();
        case "eject" -> s.eject("5 consecutive failures");
        case "return" -> s.endEjection("ejection 1 ended");
        case "drain" -> s.drain("removed by API");
        default -> throw new IllegalArgumentException(step);
      };
      t.ifPresent(x -> out.add(x.toString()));
    }
    return String.join(" | ", out);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = ';', nullValues = "none", textBlock = """
      true;  post;                          lame-duck; healthy -> lame-duck: lame duck requested by API
      true;  post post;                     lame-duck; healthy -> lame-duck: lame duck requested by API
      true;  post ok ok ok;                 lame-duck; healthy -> lame-duck: lame duck requested by API
      true;  post delete;                   unhealthy; healthy -> lame-duck: lame duck requested by API | lame-duck -> unhealthy: lame duck cleared by API, waiting for a passing check
      true;  post delete delete ok;         healthy;   healthy -> lame-duck: lame duck requested by API | lame-duck -> unhealthy: lame duck cleared by API, waiting for a passing check | unhealthy -> healthy: passing check after lame duck cleared
      true;  post delete refused ok;        healthy;   healthy -> lame-duck: lame duck requested by API | lame-duck -> unhealthy: lame duck cleared by API, waiting for a passing check | unhealthy -> healthy: passing check after lame duck cleared
      true;  delete;                        healthy;   none
      true;  hdr;                           lame-duck; healthy -> lame-duck: Lame-Duck: true on a response
      true;  hdr 503 refused;               lame-duck; healthy -> lame-duck: Lame-Duck: true on a response
      true;  hdr ok;                        healthy;   healthy -> lame-duck: Lame-Duck: true on a response | lame-duck -> healthy: health check passed without Lame-Duck header
      true;  ok+ld ok+ld ok;                healthy;   healthy -> lame-duck: Lame-Duck: true on a health check | lame-duck -> healthy: health check passed without Lame-Duck header
      true;  503+ld;                        lame-duck; healthy -> lame-duck: Lame-Duck: true on a health check
      true;  post hdr ok;                   lame-duck; healthy -> lame-duck: lame duck requested by API
      true;  hdr delete ok;                 healthy;   healthy -> lame-duck: Lame-Duck: true on a response | lame-duck -> unhealthy: lame duck cleared by API, waiting for a passing check | unhealthy -> healthy: passing check after lame duck cleared
      true;  hdr delete ok+ld;              lame-duck; healthy -> lame-duck: Lame-Duck: true on a response | lame-duck -> unhealthy: lame duck cleared by API, waiting for a passing check | unhealthy -> lame-duck: Lame-Duck: true on a health check
      true;  refused refused refused;       unhealthy; healthy -> unhealthy: 3 consecutive failed checks: connection refused
      true;  503 503 503 ok ok;             healthy;   healthy -> unhealthy: 3 consecutive failed checks: HTTP 503 | unhealthy -> healthy: 2 consecutive passing checks
      true;  post refused refused refused;  lame-duck; healthy -> lame-duck: lame duck requested by API
      true;  refused refused refused hdr ok; unhealthy; healthy -> unhealthy: 3 consecutive failed checks: connection refused | unhealthy -> lame-duck: Lame-Duck: true on a response | lame-duck -> unhealthy: health check passed without Lame-Duck header
      true;  eject;                         ejected;   healthy -> ejected: 5 consecutive failures
      true;  eject return;                  unhealthy; healthy -> ejected: 5 consecutive failures | ejected -> unhealthy: ejection 1 ended, waiting for a passing check
      true;  eject return return ok;        healthy;   healthy -> ejected: 5 consecutive failures | ejected -> unhealthy: ejection 1 ended, waiting for a passing check | unhealthy -> healthy: passing check after ejection ended
      true;  eject post;                    lame-duck; healthy -> ejected: 5 consecutive failures | ejected -> lame-duck: lame duck requested by API
      true;  post eject delete;             ejected;   healthy -> lame-duck: lame duck requested by API | lame-duck -> ejected: lame duck cleared by API, waiting for a passing check
      true;  refused refused refused eject; ejected;   healthy -> unhealthy: 3 consecutive failed checks: connection refused | unhealthy -> ejected: 5 consecutive failures
      true;  drain post delete eject ok;    draining;  healthy -> draining: removed by API
      true;  post drain;                    draining;  healthy -> lame-duck: lame duck requested by API | lame-duck -> draining: removed by API
      true;  lacks lacks lacks met met;     healthy;   healthy -> unhealthy: 3 consecutive failed checks: body lacks "ok" | unhealthy -> healthy: 2 consecutive passing checks
      true;  hdr lacks lacks;               lame-duck; healthy -> lame-duck: Lame-Duck: true on a response
      true;  hdr lacks met;                 healthy;   healthy -> lame-duck: Lame-Duck: true on a response | lame-duck -> healthy: health check passed without Lame-Duck header
      true;  lacks+ld;                      lame-duck; healthy -> lame-duck: Lame-Duck: true on a health check
      false; ok;                            healthy;   unhealthy -> healthy: first passing check
      false; met;                           healthy;   unhealthy -> healthy: first passing check
      false; hdr ok;                        healthy;   unhealthy -> lame-duck: Lame-Duck: true on a response | lame-duck -> healthy: health check passed without Lame-Duck header
      false; post;                          lame-duck; unhealthy -> lame-duck: lame duck requested by API
      """)
  void stateMachine(boolean initiallyHealthy, String script, String endState, String transitions) {
    BackendStatus s = new BackendStatus("b1", new HealthThresholds(2, 3), initiallyHealthy);
    assertThat(run(s, script)).isEqualTo(transitions == null ? "" : transitions);
    assertThat(s.state().jsonName()).isEqualTo(endState);
    assertThat(s.available()).isEqualTo("healthy".equals(endState));
  }

  @Test
  void reasonExplainsTheCurrentState() {
    BackendStatus s = new BackendStatus("b1", new HealthThresholds(2, 3), true);
    run(s, "refused refused refused post eject");
    assertThat(s.toString()).isEqualTo("b1 lame-duck (lame duck requested by API)");
    run(s, "delete");
    assertThat(s.toString()).isEqualTo("b1 ejected (5 consecutive failures)");
    run(s, "return");
    assertThat(s.toString()).isEqualTo("b1 unhealthy (3 consecutive failed checks: connection refused)");
    assertThat(s.lameDuck() + " " + s.ejected() + " " + s.draining() + " " + s.health().healthy())
        .isEqualTo("false false false false");
  }

  @Test
  void jsonNamesAreTheDesignsOnes() {
    assertThat(Arrays.stream(BackendState.values()).map(BackendState::jsonName).collect(Collectors.joining(" ")))
        .isEqualTo("healthy unhealthy lame-duck ejected draining");
    assertThat(BackendState.fromJson("lame-duck")).contains(BackendState.LAME_DUCK);
    assertThat(BackendState.fromJson("LAME_DUCK")).isEmpty();
  }

  @Test
  void transitionMustChangeTheState() {
    assertThatThrownBy(() -> new Transition(BackendState.HEALTHY, BackendState.HEALTHY, "x"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
