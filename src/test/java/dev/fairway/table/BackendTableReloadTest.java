package dev.fairway.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.balancer.RendezvousSubsetter;
import dev.fairway.balancer.Subsetter;
import dev.fairway.config.FairwayConfig;
import dev.fairway.config.SubsetAlgorithm;
import dev.fairway.config.SubsettingSettings;
import dev.fairway.slots.Admission;
import dev.fairway.slots.Waiter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The backend table's membership side as event sequences: config reloads (added, changed, draining,
 * replaced backends), draining until the last request ends, the API's add and remove, and the
 * cluster position. See {@link TableHarness} for the event lines.
 */
class BackendTableReloadTest extends TableHarness {
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
    Waiter held = waiter();
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
    BackendsAdded added = table.addBackends("a", List.of(
        Map.of("id", "x1", "url", "http://127.0.0.1:9101", "capacity", 1),
        Map.of("url", "http://127.0.0.1:9102", "capacity", 1)), now);
    assertThat(added).isEqualTo(new BackendsAdded(List.of("x1", "127.0.0.1:9102"), true));
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

  /** Issue 21 item 6: seed 000's capacity "can be updated later". */
  @Test
  void anExistingIdTakesTheNewCapacityAndWeightInPlace() {
    startAB();
    int before = slots.view().endpoints().get("b1").capacity();
    String stateBefore = state("b1");
    BackendsAdded added = table.addBackends("a", List.of(
        Map.of("id", "b1", "url", table.backend("b1").url(), "capacity", before + 7, "weight", 3)), now);
    assertThat(added).isEqualTo(new BackendsAdded(List.of("b1"), false));
    assertThat(slots.view().endpoints().get("b1").capacity()).isEqualTo(before + 7);
    assertThat(table.backend("b1").capacity()).isEqualTo(before + 7);
    assertThat(state("b1")).as("no new health check needed").isEqualTo(stateBefore);
    assertThat(take()).as("no check scheduled, no transition").isEmpty();
    assertThat(notes).last().asString().startsWith("backend b1 updated by API: capacity " + before + " -> "
        + (before + 7) + ", weight 1 -> 3");
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

  @Test
  void aSplitServiceTakesNoBackendsByApi() {
    Map<String, Object> split = service("s", 0);
    split.put("split", List.of(Map.of("service", "a", "weight", 1)));
    start(config(service("a", 0, backend("b1", 9001, 1)), split));
    assertThat(rejection(() -> table.addBackends("s", List.of(Map.of("url", "http://127.0.0.1:9002")), now)))
        .isEqualTo("400 service s splits its requests between other services and takes no backends; expected one of "
            + "its split targets");
    assertThat(table.members("s")).isEmpty();
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

  // ---- subsetting.algorithm

  /** Twelve backends, client 4 of 10, subsets of 3; then a thirteenth backend is added. */
  private Map<String, Set<String>> subsetsBeforeAndAfterABackendJoins(String algorithm) {
    List<Object> twelve = new ArrayList<>();
    for (int i = 1; i <= 12; i++) {
      twelve.add(backend(String.format("b%02d", i), 9000 + i, 2));
    }
    List<Object> thirteen = new ArrayList<>(twelve);
    thirteen.add(backend("b13", 9013, 2));
    start(withAlgorithm(config(4, 10, service("a", 3, twelve.toArray())), algorithm));
    Set<String> before = Set.copyOf(table.subsets().get("a"));
    table.reload(withAlgorithm(config(4, 10, service("a", 3, thirteen.toArray())), algorithm), "hash2", now);
    return Map.of("before", before, "after", Set.copyOf(table.subsets().get("a")));
  }

  static FairwayConfig withAlgorithm(FairwayConfig c, String algorithm) {
    SubsettingSettings s = c.subsetting();
    return c.withSubsetting(new SubsettingSettings(s.clientId(), s.clientCount(),
        SubsetAlgorithm.fromConfig(algorithm).orElseThrow()));
  }

  @Test
  void rendezvousSubsettingIsTheBalancersWhenConfiguredAndKeepsTheSubsetWhenABackendJoins() {
    Map<String, Set<String>> book = subsetsBeforeAndAfterABackendJoins("book");
    Map<String, Set<String>> rendezvous = subsetsBeforeAndAfterABackendJoins("rendezvous");
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= 12; i++) {
      ids.add(String.format("b%02d", i));
    }
    assertThat(book.get("before")).isEqualTo(Set.copyOf(Subsetter.subset(ids, 4, 3)));
    assertThat(rendezvous.get("before")).isEqualTo(Set.copyOf(RendezvousSubsetter.subset(ids, 4, 10, 3)));
    assertThat(book.get("after")).as("the book's rounds reshuffle").isNotEqualTo(book.get("before"));
    assertThat(rendezvous.get("after")).as("rendezvous keeps client 4's subset").isEqualTo(rendezvous.get("before"));
  }

  @Test
  void inTheClusterTheDefaultAlgorithmIsRendezvousAcrossReloadsAndANamedOneIsKept() {
    List<Object> twelve = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= 12; i++) {
      twelve.add(backend(String.format("b%02d", i), 9000 + i, 2));
      ids.add(String.format("b%02d", i));
    }
    start(config(service("a", 3, twelve.toArray())));
    table.moveClient(4, 10, now);
    assertThat(table.subsets().get("a")).isEqualTo(Set.copyOf(RendezvousSubsetter.subset(ids, 4, 10, 3)));
    List<Object> thirteen = new ArrayList<>(twelve);
    thirteen.add(backend("b13", 9013, 2));
    table.reload(config(service("a", 3, thirteen.toArray())), "hash2", now);
    List<String> more = new ArrayList<>(ids);
    more.add("b13");
    assertThat(table.subsets().get("a")).isEqualTo(Set.copyOf(RendezvousSubsetter.subset(more, 4, 10, 3)));

    start(withAlgorithm(config(service("a", 3, twelve.toArray())), "book"));
    table.moveClient(4, 10, now);
    assertThat(table.subsets().get("a")).isEqualTo(Set.copyOf(Subsetter.subset(ids, 4, 3)));
  }
}
