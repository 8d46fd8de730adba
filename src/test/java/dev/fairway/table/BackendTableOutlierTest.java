package dev.fairway.table;

import static dev.fairway.balancer.Outcome.GATEWAY_FAILURE;
import static dev.fairway.balancer.Outcome.OVERLOADED;
import static dev.fairway.balancer.Outcome.SERVER_ERROR;
import static dev.fairway.balancer.Outcome.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.balancer.Outcome;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Passive ejection per service: each service's {@code outlierDetection} over its members, the
 * overloaded 503 that never ejects, a backend two services share, success rates, and reloads. See
 * {@link TableHarness} for the event lines.
 */
class BackendTableOutlierTest extends TableHarness {

  /** {@link TableHarness#service} with an {@code outlierDetection} block. */
  private static Map<String, Object> service(String name, Map<String, Object> outliers, Object... backends) {
    Map<String, Object> s = TableHarness.service(name, 0, backends);
    s.put("outlierDetection", outliers);
    return s;
  }

  /** One period of {@code n} requests to {@code id}, each ending as {@code o}. */
  private void observe(String id, Outcome o, int n, long at) {
    table.onObservations(batch(id, Collections.nCopies(n, o).toArray(Outcome[]::new)), at);
  }

  @Test
  void eachServiceEjectsByItsOwnThreshold() {
    start(config(service("a", Map.of("consecutive5xx", 3), backend("b1", 9001, 2), backend("b2", 9002, 2),
        backend("b3", 9003, 2)), service("b", Map.of(), backend("b4", 9004, 2), backend("b5", 9005, 2),
        backend("b6", 9006, 2))));
    take();
    observe("b1", SERVER_ERROR, 3, now);
    observe("b4", SERVER_ERROR, 3, now);
    assertThat(take()).isEqualTo("b1 healthy->ejected");
    assertThat(table.backend("b1").reason()).isEqualTo("service a: 3 consecutive 5xx; ejected for 30 s (ejection 1)");
    observe("b4", SERVER_ERROR, 2, now);
    assertThat(take()).isEqualTo("b4 healthy->ejected");
    assertThat(grants("a") + " / " + grants("b")).isEqualTo("b2 b3 b2 / b5 b6 b5");
  }

  @Test
  void aBackendsOwn503WithRetryAfterNeverEjectsItWhileOneWithoutDoes() {
    start(config(service("a", Map.of(), backend("b1", 9001, 2), backend("b2", 9002, 2), backend("b3", 9003, 2))));
    take();
    observe("b1", OVERLOADED, 50, now);
    observe("b1", SERVER_ERROR, 4, now);
    observe("b1", OVERLOADED, 50, now);
    assertThat(take()).as("overloaded: neither counted nor a break").isEmpty();
    observe("b1", SERVER_ERROR, 1, now);
    observe("b2", GATEWAY_FAILURE, 5, now);
    assertThat(take()).as("b1: 4 + 1 500s; b2: five 503s without Retry-After, but one of three at most")
        .isEqualTo("b1 healthy->ejected");
  }

  @Test
  void aSharedBackendStaysEjectedWhileAnyOfItsServicesEjectsIt() {
    start(config(service("a", Map.of("consecutive5xx", 3, "baseEjectionMs", 10_000), backend("b1", 9001, 2),
        backend("b2", 9002, 2), backend("b3", 9003, 2)), service("b", Map.of(), backend("b1", 9001, 2),
        backend("b4", 9004, 2))));
    take();
    observe("b1", SERVER_ERROR, 3, now);
    assertThat(take()).isEqualTo("b1 healthy->ejected");
    assertThat(grants("b")).as("one state for both services").isEqualTo("b4 b4");
    observe("b1", SERVER_ERROR, 5, now + S);
    assertThat(table.backend("b1").reason()).as("b counts on: 3 + 5 (late answers of requests in flight)")
        .isEqualTo("service b: 8 consecutive 5xx; ejected for 30 s (ejection 1)");
    table.endEjections(now + 10 * S);
    assertThat(take()).as("b still ejects it").isEmpty();
    assertThat(table.nextEjectionEndNanos().getAsLong() - now).isEqualTo(31 * S);
    table.endEjections(now + 31 * S);
    assertThat(take()).isEqualTo("b1 ejected->unhealthy, check b1 now");
  }

  @Test
  void aServiceThatCannotSpareASharedBackendKeepsItIn() {
    start(config(service("a", Map.of("consecutive5xx", 3), backend("b1", 9001, 2), backend("b2", 9002, 2),
        backend("b3", 9003, 2)), service("b", Map.of("maxEjectionPercent", 0), backend("b1", 9001, 2),
        backend("b4", 9004, 2))));
    take();
    observe("b1", SERVER_ERROR, 10, now);
    assertThat(take()).as("b ejects none of its backends").isEmpty();
    observe("b2", SERVER_ERROR, 3, now);
    assertThat(take()).isEqualTo("b2 healthy->ejected");
  }

  @Test
  void aPassingCheckEndsTheEjectionsOfEveryService() {
    startAB();
    observe("b1", SERVER_ERROR, 5, now);
    assertThat(take()).as("b1 is service b's last usable backend").isEmpty();
    start(config(TableHarness.service("a", 0, backend("b1", 9001, 2), backend("b2", 9002, 2)),
        TableHarness.service("b", 0, backend("b1", 9001, 2), backend("b3", 9003, 2))));
    take();
    observe("b1", SERVER_ERROR, 5, now);
    table.onCheck("b1", pass(), now + S);
    assertThat(take()).isEqualTo("b1 healthy->ejected, b1 ejected->unhealthy, b1 unhealthy->healthy, check b1 in 1100");
    assertThat(table.nextEjectionEndNanos()).isEmpty();
  }

  @Test
  void successRateEjectsTheBackendFarBelowItsPeers() {
    List<Object> five = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      five.add(backend("b" + i, 9000 + i, 2));
    }
    start(config(service("a", Map.of("successRate", Map.of()), five.toArray())));
    take();
    for (int i = 1; i <= 4; i++) {
      table.onObservations(batch("b" + i, outcomes(99, 1)), now);
    }
    table.onObservations(batch("b5", outcomes(60, 40)), now + 9 * S);
    assertThat(take()).as("within the 10 s interval").isEmpty();
    table.onObservations(batch("b1", SUCCESS), now + 10 * S);
    assertThat(take()).isEqualTo("b5 healthy->ejected");
    assertThat(table.backend("b5").reason())
        .isEqualTo("service a: success rate 60.0 % below 61.6 % (mean 91.2 %, stdev 15.6 %); ejected for 30 s (ejection 1)");
  }

  /** {@code ok} successes and {@code failed} 500s, alternating while both last: no run of five. */
  private static Outcome[] outcomes(int ok, int failed) {
    List<Outcome> out = new ArrayList<>();
    for (int i = 0; i < ok || i < failed; i++) {
      if (i < failed) {
        out.add(SERVER_ERROR);
      }
      if (i < ok) {
        out.add(SUCCESS);
      }
    }
    return out.toArray(Outcome[]::new);
  }

  // ---- reloads

  @Test
  void newSettingsKeepTheEjectionAndStartTheRunsAgain() {
    Object[] four = {backend("b1", 9001, 2), backend("b2", 9002, 2), backend("b3", 9003, 2), backend("b4", 9004, 2)};
    start(config(service("a", Map.of(), four)));
    take();
    observe("b2", SERVER_ERROR, 5, now);
    observe("b3", SERVER_ERROR, 1, now);
    assertThat(take()).isEqualTo("b2 healthy->ejected");
    table.reload(config(service("a", Map.of("consecutive5xx", 2), four)), "hash2", now + S);
    assertThat(take()).isEmpty();
    assertThat(state("b2")).isEqualTo("ejected");
    assertThat(table.nextEjectionEndNanos().getAsLong() - now).isEqualTo(30 * S);
    observe("b3", SERVER_ERROR, 1, now + S);
    assertThat(take()).as("the run began again at the reload").isEmpty();
    observe("b3", SERVER_ERROR, 1, now + S);
    assertThat(take()).isEqualTo("b3 healthy->ejected");
  }

  @Test
  void aBackendWhoseEjectingServiceLeftIsNoLongerEjected() {
    Map<String, Object> a = service("a", Map.of(), backend("b1", 9001, 2), backend("b2", 9002, 2));
    start(config(a, service("b", Map.of("consecutive5xx", 2), backend("b2", 9002, 2), backend("b3", 9003, 2))));
    take();
    observe("b2", SERVER_ERROR, 2, now);
    assertThat(take()).isEqualTo("b2 healthy->ejected");
    table.reload(config(a), "hash2", now + S);
    assertThat(take()).isEqualTo("b3 healthy->draining, b2 ejected->unhealthy, check b2 now");
    assertThat(table.nextEjectionEndNanos()).isEmpty();
  }

  @Test
  void aBackendReplacedUnderItsIdStartsClean() {
    Object[] three = {backend("b1", 9001, 2), backend("b2", 9002, 2), backend("b3", 9003, 2)};
    start(config(service("a", Map.of(), three)));
    take();
    observe("b2", SERVER_ERROR, 5, now);
    assertThat(take()).isEqualTo("b2 healthy->ejected");
    table.reload(config(service("a", Map.of(), backend("b1", 9001, 2), backend("b2", 9012, 2),
        backend("b3", 9003, 2))), "hash2", now + S);
    assertThat(take()).isEqualTo("b2 removed: replaced by the new config, check b2 in 1");
    assertThat(table.nextEjectionEndNanos()).as("the old b2's ejection went with it").isEmpty();
    observe("b3", SERVER_ERROR, 5, now + S);
    assertThat(take()).as("b3 may be ejected: the new b2 is no ejected one").isEqualTo("b3 healthy->ejected");
  }
}
