package dev.fairway.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.balancer.Observation;
import dev.fairway.balancer.ObservationBatch;
import dev.fairway.config.ConfigException;
import dev.fairway.config.ConfigParser;
import dev.fairway.config.FairwayConfig;
import dev.fairway.health.Transition;
import dev.fairway.route.BalancerSnapshot;
import dev.fairway.slots.Admission;
import dev.fairway.slots.SlotTable;
import dev.fairway.slots.Waiter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * The backend table's state changes as sequences of events, one line each: {@code b1
 * healthy->lame-duck} for a transition, {@code check b1 in 999} for a health check it asks for,
 * {@code check b1 now}, {@code b1 removed: why}. Time is {@link #now}, moved by hand; the random
 * generator always answers the largest value it may, so every delay is pinned.
 */
class BackendTableTest {
  private static final long S = 1_000_000_000L;

  private final List<String> events = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final List<BalancerSnapshot> published = new ArrayList<>();
  private final SlotTable slots = new SlotTable(1);
  private long now = 1_000 * S;
  private BackendTable table;

  /** Answers the top of every range: {@code nextLong(a, b)} is {@code b - 1}. */
  private static final RandomGenerator HIGHEST = new RandomGenerator() {
    @Override
    public long nextLong() {
      return Long.MAX_VALUE;
    }

    @Override
    public long nextLong(long bound) {
      return bound - 1;
    }

    @Override
    public long nextLong(long origin, long bound) {
      return bound - 1;
    }
  };

  private final TableListener recorder = new TableListener() {
    @Override
    public void published(BalancerSnapshot snapshot) {
      published.add(snapshot);
    }

    @Override
    public void transitioned(String id, Transition t) {
      events.add(id + " " + t.from().jsonName() + "->" + t.to().jsonName());
    }

    @Override
    public void checkDue(String id, long delayMs) {
      events.add("check " + id + " in " + delayMs);
    }

    @Override
    public void checkNow(String id) {
      events.add("check " + id + " now");
    }

    @Override
    public void removed(String id, String why) {
      events.add(id + " removed: " + why);
    }

    @Override
    public void note(String line) {
      notes.add(line);
    }
  };

  // ---- config building

  private static Map<String, Object> backend(String id, int port, int capacity) {
    return new LinkedHashMap<>(Map.of("id", id, "url", "http://127.0.0.1:" + port, "capacity", capacity));
  }

  /** A service matching {@code /name}, round robin, checks every second, thresholds 2/3. */
  private static Map<String, Object> service(String name, int subsetSize, Object... backends) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("name", name);
    s.put("match", Map.of("host", "*", "pathPrefix", "/" + name));
    s.put("strategy", "round-robin");
    s.put("subsetSize", subsetSize);
    s.put("healthCheck", Map.of("path", "/health", "intervalMs", 1000, "timeoutMs", 500,
        "healthyThreshold", 2, "unhealthyThreshold", 3));
    s.put("backends", List.of(backends));
    return s;
  }

  @SafeVarargs
  private static FairwayConfig config(Map<String, Object>... services) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("proxy", Map.of("host", "127.0.0.1", "port", 0));
    root.put("admin", Map.of("host", "127.0.0.1", "port", 0, "token", "test-token-0123456789"));
    root.put("services", List.of(services));
    try {
      return ConfigParser.parse(root, Map.of());
    } catch (ConfigException e) {
      throw new IllegalArgumentException(String.join("\n", e.problems()), e);
    }
  }

  private void start(FairwayConfig config) {
    table = new BackendTable(config, "hash1", slots, HIGHEST, recorder, now);
    table.load(now);
  }

  /** Two services: {@code a} over b1, b2, b3 and {@code b} over b1 alone. */
  private void startAB() {
    start(config(service("a", 0, backend("b1", 9001, 2), backend("b2", 9002, 2), backend("b3", 9003, 2)),
        service("b", 0, backend("b1", 9001, 2))));
    take();
  }

  /** The events since the last call, comma-separated. */
  private String take() {
    String out = String.join(", ", events);
    events.clear();
    return out;
  }

  private String state(String id) {
    BackendView v = table.backend(id);
    return v == null ? "gone" : v.state().jsonName();
  }

  private static CheckOutcome pass() {
    return new CheckOutcome(200, false, true, null, null);
  }

  private static CheckOutcome refused() {
    return new CheckOutcome(0, false, false, null, "connection refused");
  }

  private static ObservationBatch failures(String id, int n) {
    return new ObservationBatch(List.of(new Observation(id, n, n, n, false, n * 1_000_000L, null)));
  }

  /** Which backends service {@code a} grants slots on now, one acquire and release per member. */
  private String grants(String service) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < table.members(service).size(); i++) {
      Waiter w = new Waiter() {
        @Override
        protected void granted(dev.fairway.balancer.Endpoint endpoint) {
        }
      };
      Admission a = slots.acquire(slots.service(service), w, now);
      out.add(a == Admission.GRANTED ? w.endpoint().id() : a.name());
      if (a == Admission.GRANTED) {
        slots.release(w, now, 0, false);
      }
    }
    return String.join(" ", out);
  }

  // ---- start-up

  @Test
  void startUpCountsBackendsHealthyAndSpreadsTheirFirstChecks() {
    start(config(service("a", 0, backend("b1", 9001, 2), backend("b2", 9002, 2))));
    assertThat(take()).isEqualTo("check b1 in 999, check b2 in 999");
    assertThat(state("b1") + " " + state("b2")).isEqualTo("healthy healthy");
    assertThat(notes).containsExactly("serving optimistically: 2 backends count as healthy until their first "
        + "health checks");
    assertThat(published).hasSize(1);
    assertThat(table.snapshot().route("x", "/a/1").service()).isEqualTo("a");
    assertThat(grants("a")).isEqualTo("b1 b2");
  }

  // ---- lame duck

  @Test
  void lameDuckByApiOnThenOffWaitsForAPassingCheck() {
    startAB();
    table.lameDuck("b2", true, now);
    table.lameDuck("b2", true, now);
    assertThat(take()).isEqualTo("b2 healthy->lame-duck");
    assertThat(grants("a")).isEqualTo("b1 b3 b1");
    table.onCheck("b2", pass(), now);
    assertThat(take()).as("a passing check does not undo a pushed lame duck").isEqualTo("check b2 in 1100");
    table.lameDuck("b2", false, now);
    assertThat(take()).isEqualTo("b2 lame-duck->unhealthy, check b2 now");
    table.lameDuck("b2", false, now);
    assertThat(take()).isEqualTo("check b2 now");
    table.onCheck("b2", pass(), now);
    assertThat(take()).isEqualTo("b2 unhealthy->healthy, check b2 in 1100");
    assertThat(grants("a")).isEqualTo("b2 b3 b1");
  }

  @Test
  void lameDuckHeaderEndsWithAPassingCheckWithoutIt() {
    startAB();
    table.onLameDuckHeader("b1", now);
    assertThat(take()).isEqualTo("b1 healthy->lame-duck");
    assertThat(grants("b")).isEqualTo("NO_BACKEND");
    table.onCheck("b1", new CheckOutcome(200, true, false, null, null), now);
    assertThat(take()).isEqualTo("check b1 in 1100");
    table.onCheck("b1", pass(), now);
    assertThat(take()).isEqualTo("b1 lame-duck->healthy, check b1 in 1100");
    assertThat(grants("b")).isEqualTo("b1");
  }

  @Test
  void lameDuckOfAnUnknownBackendIs404() {
    startAB();
    assertThatThrownBy(() -> table.lameDuck("b9", true, now)).isInstanceOf(CommandRejected.class)
        .hasMessage("unknown backend id b9").extracting(e -> ((CommandRejected) e).status()).isEqualTo(404);
  }

  // ---- active health checks

  @Test
  void threeFailedChecksMakeUnhealthyAndTwoPassingOnesHealthyAgain() {
    startAB();
    table.onCheck("b3", refused(), now);
    table.onCheck("b3", refused(), now);
    assertThat(state("b3")).isEqualTo("healthy");
    table.onCheck("b3", refused(), now);
    assertThat(take()).isEqualTo("check b3 in 1100, check b3 in 1100, b3 healthy->unhealthy, check b3 in 1100");
    assertThat(table.backend("b3").reason()).contains("connection refused");
    assertThat(grants("a")).isEqualTo("b1 b2 b1");
    table.onCheck("b3", pass(), now);
    table.onCheck("b3", refused(), now);
    table.onCheck("b3", pass(), now);
    assertThat(state("b3")).as("passes must be consecutive").isEqualTo("unhealthy");
    table.onCheck("b3", pass(), now);
    assertThat(take()).endsWith("b3 unhealthy->healthy, check b3 in 1100");
    assertThat(table.backend("b3").reason()).isNotBlank();
  }

  @Test
  void aHttpErrorCountsAsAFailedCheck() {
    startAB();
    for (int i = 0; i < 3; i++) {
      table.onCheck("b2", new CheckOutcome(503, false, false, null, null), now);
    }
    assertThat(state("b2")).isEqualTo("unhealthy");
    assertThat(table.backend("b2").reason()).contains("HTTP 503");
  }

  @Test
  void backendsOutsideEverySubsetAreCheckedFiveTimesLessOften() {
    start(config(service("a", 1, backend("b1", 9001, 2), backend("b2", 9002, 2))));
    take();
    String outside = table.backend("b1").inAnySubset() ? "b2" : "b1";
    String inside = outside.equals("b1") ? "b2" : "b1";
    table.onCheck(inside, pass(), now);
    table.onCheck(outside, pass(), now);
    assertThat(take()).isEqualTo("check " + inside + " in 1100, check " + outside + " in 5500");
  }

  // ---- passive ejection

  @Test
  void fiveFailuresEjectForThirtySecondsThenACheckLetsTheBackendBackIn() {
    startAB();
    table.onObservations(failures("b2", 4), now);
    assertThat(take()).isEmpty();
    table.onObservations(failures("b2", 1), now);
    assertThat(take()).isEqualTo("b2 healthy->ejected");
    assertThat(table.backend("b2").reason()).contains("5 consecutive failures").contains("ejected for 30 s");
    assertThat(grants("a")).isEqualTo("b1 b3 b1");
    assertThat(table.nextEjectionEndNanos().getAsLong() - now).isEqualTo(30 * S);
    table.endEjections(now + 30 * S - 1);
    assertThat(take()).isEmpty();
    table.endEjections(now + 30 * S);
    assertThat(take()).isEqualTo("b2 ejected->unhealthy, check b2 now");
    assertThat(table.nextEjectionEndNanos()).isEmpty();
    table.onCheck("b2", pass(), now + 31 * S);
    assertThat(take()).isEqualTo("b2 unhealthy->healthy, check b2 in 1100");
    assertThat(grants("a")).isEqualTo("b2 b3 b1");
  }

  @Test
  void aPassingCheckEndsAnEjectionEarlyAndTheNextOneLastsLonger() {
    startAB();
    table.onObservations(failures("b2", 5), now);
    table.onCheck("b2", pass(), now + S);
    assertThat(take()).isEqualTo("b2 healthy->ejected, b2 ejected->unhealthy, b2 unhealthy->healthy, "
        + "check b2 in 1100");
    table.onObservations(failures("b2", 5), now + 2 * S);
    assertThat(take()).isEqualTo("b2 healthy->ejected");
    assertThat(table.backend("b2").reason()).contains("ejected for 60 s (ejection 2)");
  }

  @Test
  void aFailingCheckDoesNotEndAnEjection() {
    startAB();
    table.onObservations(failures("b2", 5), now);
    table.onCheck("b2", refused(), now + S);
    assertThat(take()).isEqualTo("b2 healthy->ejected, check b2 in 1100");
    assertThat(state("b2")).isEqualTo("ejected");
  }

  @Test
  void aSuccessResetsTheCountAndAtMostHalfASubsetIsEjected() {
    startAB();
    table.onObservations(failures("b2", 4), now);
    table.onObservations(new ObservationBatch(List.of(new Observation("b2", 2, 1, 0, true, 0, null))), now);
    table.onObservations(failures("b2", 4), now);
    assertThat(take()).as("4 + 1, but a success came between").isEmpty();
    table.onObservations(failures("b2", 1), now);
    table.onObservations(failures("b3", 5), now);
    assertThat(take()).as("b3 would make two of three ejected").isEqualTo("b2 healthy->ejected");
    table.onObservations(failures("b1", 5), now);
    assertThat(take()).as("b1 is service b's last usable backend").isEmpty();
  }

  // ---- load reports and scores

  @Test
  void loadReportsBecomeWeightsAfterTheBlackout() {
    startAB();
    report("b1", "TEXT cpu_utilization=0.5, rps_fractional=100", now);
    report("b2", "TEXT cpu_utilization=0.25, rps_fractional=100", now);
    table.tick(now + S);
    assertThat(weights()).as("within the 10 s blackout").isEqualTo("b1=1.0 b2=1.0 b3=1.0");
    report("b1", "TEXT cpu_utilization=0.5, rps_fractional=100", now + 11 * S);
    report("b2", "TEXT cpu_utilization=0.25, rps_fractional=100", now + 11 * S);
    table.tick(now + 11 * S);
    assertThat(weights()).as("b3 reports nothing: the mean").isEqualTo("b1=200.0 b2=400.0 b3=300.0");
    assertThat(table.backend("b2").utilization()).isEqualTo(0.25);
  }

  private void report(String id, String header, long at) {
    table.onCheck(id, new CheckOutcome(200, false, true, header, null), at);
  }

  private String weights() {
    return String.join(" ", table.backends().stream().map(b -> b.id() + "=" + Math.round(b.weight() * 10) / 10.0)
        .toList());
  }

  // ---- reload

  @Test
  void reloadAddsChangesAndDrainsBackendsByTheDiff() {
    startAB();
    FairwayConfig next = config(
        service("a", 0, backend("b1", 9001, 5), backend("b3", 9003, 2), backend("b4", 9004, 2)),
        service("c", 0, backend("b5", 9005, 1)));
    ReloadSummary r = table.reload(next, "hash2", now).orElseThrow();
    assertThat(r).isEqualTo(new ReloadSummary(2, "hash2", 2, 1, 1));
    assertThat(take()).isEqualTo("b2 healthy->draining, check b4 in 1, check b5 in 1");
    assertThat(table.serviceNames()).containsExactly("a", "c");
    assertThat(table.members("a")).containsExactly("b2", "b1", "b3", "b4");
    assertThat(state("b2") + " " + state("b4") + " " + state("b5")).isEqualTo("draining unhealthy unhealthy");
    assertThat(slots.view().endpoints().get("b1").capacity()).isEqualTo(5);
    assertThat(table.configVersion() + " " + table.configHash()).isEqualTo("2 hash2");
    assertThat(table.snapshot().route("x", "/b/1")).as("service b left").isNull();
    table.tick(now + S);
    assertThat(take()).isEqualTo("b2 removed: drained and removed");
    assertThat(table.members("a")).containsExactly("b1", "b3", "b4");
    assertThat(table.reload(next, "hash2", now)).as("the same text again").isEmpty();
  }

  @Test
  void aDrainingBackendStaysUntilItsLastRequestEnds() {
    startAB();
    Waiter held = new Waiter() {
      @Override
      protected void granted(dev.fairway.balancer.Endpoint endpoint) {
      }
    };
    while (slots.acquire(slots.service("a"), held, now) == Admission.GRANTED && !held.endpoint().id().equals("b2")) {
      slots.release(held, now, 0, false);
    }
    table.reload(config(service("a", 0, backend("b1", 9001, 2), backend("b3", 9003, 2)),
        service("b", 0, backend("b1", 9001, 2))), "hash2", now);
    table.tick(now + S);
    assertThat(take()).isEqualTo("b2 healthy->draining");
    slots.release(held, now, 0, false);
    table.tick(now + 2 * S);
    assertThat(take()).isEqualTo("b2 removed: drained and removed");
    assertThat(table.backend("b2")).isNull();
  }

  @Test
  void aBackendSharedByTwoServicesDrainsOnlyWhenNeitherListsIt() {
    startAB();
    table.reload(config(service("a", 0, backend("b2", 9002, 2), backend("b3", 9003, 2)),
        service("b", 0, backend("b1", 9001, 2))), "hash2", now);
    assertThat(take()).isEmpty();
    assertThat(state("b1")).isEqualTo("healthy");
    table.reload(config(service("a", 0, backend("b2", 9002, 2), backend("b3", 9003, 2))), "hash3", now);
    assertThat(take()).isEqualTo("b1 healthy->draining");
  }

  @Test
  void aNewUrlForAnIdReplacesTheBackend() {
    startAB();
    table.reload(config(service("a", 0, backend("b1", 9001, 2), backend("b2", 9012, 2), backend("b3", 9003, 2)),
        service("b", 0, backend("b1", 9001, 2))), "hash2", now);
    assertThat(take()).isEqualTo("b2 removed: replaced by the new config, check b2 in 1");
    assertThat(table.backend("b2").url()).isEqualTo("http://127.0.0.1:9012");
    assertThat(state("b2")).isEqualTo("unhealthy");
    assertThat(table.members("a")).containsExactly("b1", "b2", "b3");
  }

  @Test
  void reloadKeepsTheBackendsTheApiAddedUnlessTheFileNamesThem() {
    startAB();
    table.addBackends("a", List.of(Map.of("id", "x1", "url", "http://127.0.0.1:9101", "capacity", 1)), now);
    table.reload(config(service("a", 0, backend("b1", 9001, 2)), service("b", 0, backend("b1", 9001, 2))),
        "hash2", now);
    assertThat(table.members("a")).containsExactly("b2", "b3", "b1", "x1");
    table.tick(now + S);
    assertThat(table.members("a")).containsExactly("b1", "x1");
    table.reload(config(service("a", 0, backend("b1", 9001, 2), backend("x1", 9101, 3))), "hash3", now);
    assertThat(slots.view().endpoints().get("x1").capacity()).as("the file's x1 now").isEqualTo(3);
  }

  // ---- API commands

  @Test
  void addThenRemoveByApi() {
    startAB();
    List<String> ids = table.addBackends("a", List.of(
        Map.of("id", "x1", "url", "http://127.0.0.1:9101", "capacity", 1),
        Map.of("url", "http://127.0.0.1:9102", "capacity", 1)), now);
    assertThat(ids).containsExactly("x1", "127.0.0.1:9102");
    assertThat(take()).isEqualTo("check x1 in 1, check 127.0.0.1:9102 in 1");
    assertThat(notes).last().isEqualTo("backend 127.0.0.1:9102 (http://127.0.0.1:9102) added to service a by API; "
        + "it serves once a health check passes");
    assertThat(state("x1")).isEqualTo("unhealthy");
    assertThat(table.members("a")).containsExactly("b1", "b2", "b3", "x1", "127.0.0.1:9102");
    table.removeBackend("a", "x1", now);
    assertThat(take()).isEqualTo("x1 unhealthy->draining");
    table.removeBackend("b", "b1", now);
    assertThat(take()).as("b1 still serves a").isEmpty();
    assertThat(notes).last().isEqualTo("backend b1 removed from service b by API");
    assertThat(table.members("b")).isEmpty();
    assertThat(grants("b")).isEmpty();
  }

  @Test
  void badApiCommandsAreRejectedWithTheirStatus() {
    startAB();
    assertThat(rejection(() -> table.addBackends("z", List.of(), now))).isEqualTo("404 unknown service z");
    assertThat(rejection(() -> table.addBackends("a", List.of(), now)))
        .isEqualTo("400 $: an array is invalid; expected a non-empty JSON array of {\"url\", \"capacity\", \"id\"?, "
            + "\"weight\"?}");
    assertThat(rejection(() -> table.addBackends("a",
        List.of(Map.of("id", "b1", "url", "http://127.0.0.1:9999", "capacity", 1)), now)))
        .isEqualTo("400 [0].id: \"b1\" already names http://127.0.0.1:9001; expected a new id or the same url");
    assertThat(rejection(() -> table.removeBackend("z", "b1", now))).isEqualTo("404 unknown service z");
    assertThat(rejection(() -> table.removeBackend("b", "b2", now)))
        .isEqualTo("404 unknown backend id b2 in service b");
    assertThat(take()).isEmpty();
  }

  private static String rejection(Runnable command) {
    try {
      command.run();
      return "accepted";
    } catch (CommandRejected e) {
      return e.status() + " " + e.getMessage();
    }
  }

  // ---- cluster position

  @Test
  void aNewClientPositionRecomputesTheSubsets() {
    start(config(service("a", 2, backend("b1", 9001, 2), backend("b2", 9002, 2), backend("b3", 9003, 2),
        backend("b4", 9004, 2))));
    var before = Map.copyOf(table.subsets());
    int publishes = published.size();
    assertThat(table.moveClient(0, 1, now)).isFalse();
    assertThat(published).hasSize(publishes);
    assertThat(table.moveClient(1, 2, now)).isTrue();
    assertThat(table.subsets().get("a")).hasSize(2).isNotEqualTo(before.get("a"));
    assertThat(notes).last().asString().startsWith("service a: subset is now ").endsWith("(client 1 of 2, subset size 2)");
    table.reload(config(service("a", 2, backend("b1", 9001, 2), backend("b2", 9002, 2), backend("b3", 9003, 2),
        backend("b4", 9004, 2))), "hash2", now);
    assertThat(table.clientId() + " of " + table.clientCount()).as("the cluster, not the file, places it")
        .isEqualTo("1 of 2");
  }
}
