package dev.fairway.proxy.exchange;

import static dev.fairway.balancer.Outcome.GATEWAY_FAILURE;
import static dev.fairway.balancer.Outcome.NO_ANSWER;
import static dev.fairway.balancer.Outcome.OVERLOADED;
import static dev.fairway.balancer.Outcome.SERVER_ERROR;
import static dev.fairway.balancer.Outcome.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.balancer.Observation;
import dev.fairway.balancer.Observation.Run;
import dev.fairway.balancer.ObservationBatch;
import dev.fairway.balancer.Outcome;
import dev.fairway.balancer.OutcomeCounts;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tally keeps the kinds of failure apart: runs of 5xx answers and of gateway failures, the
 * overloaded 503s, and the successes a success rate counts.
 */
class TallyTest {
  private static final long MS = 1_000_000L;

  @Test
  void aPeriodDrainsToOneObservationPerBackendAndThenNothing() {
    Tally t = new Tally();
    t.record("b1", 2 * MS, SUCCESS, null);
    t.record("b1", MS, SERVER_ERROR, "TEXT cpu_utilization=0.4");
    t.record("b2", MS, OVERLOADED, null);
    t.record("b1", MS, SUCCESS, null);

    List<Observation> drained = t.drain().observations().stream()
        .sorted(Comparator.comparing(Observation::backendId)).toList();
    assertThat(drained).containsExactly(
        new Observation("b1", 3, 1, 2, 0, new Run(0, 1, 0, true), new Run(0, 0, 0, true), 4 * MS,
            "TEXT cpu_utilization=0.4"),
        new Observation("b2", 1, 1, 0, 1, Run.NONE, Run.NONE, MS, null));
    assertThat(t.drain()).isNull();
  }

  @Test
  void runsOfEachKindAndWhatBreaksThem() {
    Tally t = new Tally();
    for (Outcome o : List.of(SUCCESS, SERVER_ERROR, GATEWAY_FAILURE, NO_ANSWER, OVERLOADED, GATEWAY_FAILURE)) {
      t.record("b1", MS, o, null);
    }
    Observation o = t.drain().observations().get(0);
    assertThat(o).isEqualTo(new Observation("b1", 6, 5, 1, 1, new Run(0, 3, 3, true), new Run(0, 3, 3, true),
        6 * MS, null));
    assertThat(o.answered()).as("the overloaded one is left out of a success rate").isEqualTo(5);
  }

  @Test
  void runsBeforeTheFirstBreakContinueThePeriodBeforeAndTheLongestInsideIsKept() {
    assertThat(OutcomeCounts.of("b1", SERVER_ERROR, SERVER_ERROR, SUCCESS, SERVER_ERROR, SERVER_ERROR, SERVER_ERROR,
        SUCCESS, SERVER_ERROR).fiveXx()).isEqualTo(new Run(2, 3, 1, true));
    assertThat(OutcomeCounts.of("b1", GATEWAY_FAILURE, OVERLOADED, NO_ANSWER, GATEWAY_FAILURE).gatewayFailures())
        .isEqualTo(Run.of(3));
    assertThat(OutcomeCounts.of("b1", NO_ANSWER, NO_ANSWER, SERVER_ERROR, NO_ANSWER))
        .as("a connect failure is no 5xx; a 500 breaks the gateway run")
        .extracting(Observation::fiveXx, Observation::gatewayFailures)
        .containsExactly(Run.of(1), new Run(2, 2, 1, true));
    assertThat(OutcomeCounts.of("b1", OVERLOADED, OVERLOADED)).extracting(Observation::fiveXx,
        Observation::gatewayFailures, Observation::overloaded, Observation::failures).containsExactly(Run.NONE, Run.NONE, 2, 2);
  }

  @Test
  void theTallyPassesOnEveryBatch() {
    Tally t = new Tally();
    assertThat(t.drain()).isNull();
    t.record("b1", MS, NO_ANSWER, null);
    ObservationBatch batch = t.drain();
    assertThat(batch.observations()).extracting(Observation::gatewayFailures).containsExactly(Run.of(1));
  }
}
