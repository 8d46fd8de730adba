package dev.fairway.cluster;

import static dev.fairway.cluster.ClusterHarness.SERVICE;
import static dev.fairway.cluster.ClusterHarness.awaitTrue;
import static dev.fairway.cluster.ClusterHarness.backend;
import static dev.fairway.cluster.ClusterHarness.inSubset;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.cluster.ClusterHarness.Member;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real Fairway JVMs ({@code dev.fairway.Main -cluster}) form a Hazelcast cluster on
 * loopback in front of nine backends served by this JVM: client ids follow the membership,
 * subsets are disjoint and cover every backend, admin commands made on one member reach all, and
 * a member that stops makes the others re-subset.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class ClusterTest {
  private static final int BACKENDS = 9;
  private static final int SUBSET_SIZE = 3;

  @TempDir
  Path dir;

  private Vertx vertx;
  private ClusterHarness h;
  private final List<TestBackend> backends = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    vertx = TestVertx.create();
    for (int i = 0; i < BACKENDS; i++) {
      String id = "b" + i;
      backends.add(TestBackend.start(vertx, req -> req.response().end(id)));
    }
    h = new ClusterHarness(dir, vertx, vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false)), 3,
        services());
  }

  @AfterEach
  void tearDown() throws Exception {
    h.close();
    for (TestBackend b : backends) {
      b.close();
    }
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void threeMembersShareTheBackendsAndTheAdminCommands() throws Throwable {
    try {
      run();
    } catch (Throwable e) {
      throw new AssertionError(e.getMessage() + "\n" + h.logs(), e);
    }
  }

  private void run() throws Exception {
    // The first member forms the cluster alone; the two others then join it (no split brain).
    Member first = h.launch(0);
    h.awaitServing(first, 60);
    Member second = h.launch(1);
    Member third = h.launch(2);
    awaitTrue("all three members report clientCount 3", 60,
        () -> h.members().stream().allMatch(m -> h.serviceOrNull(m) != null && h.serviceOrNull(m).getInteger("clientCount") == 3));

    // Client ids 0, 1, 2; disjoint subsets of 3 that cover the 9 backends.
    Map<Integer, Member> byClientId = new TreeMap<>();
    Map<Member, Set<String>> subsetOf = new HashMap<>();
    for (Member m : h.members()) {
      JsonObject s = h.service(m);
      assertThat(s.getInteger("clientCount")).isEqualTo(3);
      byClientId.put(s.getInteger("clientId"), m);
      subsetOf.put(m, inSubset(s));
    }
    assertThat(byClientId.keySet()).containsExactly(0, 1, 2);
    Set<String> union = new TreeSet<>();
    for (Set<String> subset : subsetOf.values()) {
      assertThat(subset).hasSize(SUBSET_SIZE);
      assertThat(union).doesNotContainAnyElementsOf(subset);
      union.addAll(subset);
    }
    assertThat(union).hasSize(BACKENDS);

    // Each member's traffic goes to its own subset only (round robin: 12 requests cover all 3).
    for (Member m : h.members()) {
      assertThat(h.bodies(m, 12)).as("backends reached through member %d", m.index())
          .isEqualTo(subsetOf.get(m));
    }

    // Lame duck asked of the first member, for a backend only the second member uses.
    String duck = subsetOf.get(second).iterator().next();
    TestBackend duckBackend = backends.get(Integer.parseInt(duck.substring(1)));
    long t0 = System.nanoTime();
    TestClient.Reply lame = h.admin(first, HttpMethod.POST, "/api/backends/" + duck + "/lame-duck", null);
    assertThat(lame.status()).as(lame.body()).isEqualTo(200);
    assertThat(new JsonObject(lame.body()).getString("state")).isEqualTo("lame-duck");
    long left = TimeUnit.SECONDS.toMillis(1) - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    if (left > 0) {
      Thread.sleep(left);
    }
    int before = duckBackend.requests();
    for (Member m : h.members()) {
      Set<String> reached = h.bodies(m, 12);
      assertThat(reached).as("member %d one second after the lame-duck call", m.index()).doesNotContain(duck);
    }
    assertThat(duckBackend.requests()).as("requests to the lame duck " + duck).isEqualTo(before);
    for (Member m : h.members()) {
      assertThat(backend(h.service(m), duck).getString("state")).as("member %d", m.index()).isEqualTo("lame-duck");
    }
    // Validation stays local: an unknown id is 404 on the member asked.
    assertThat(h.admin(third, HttpMethod.POST, "/api/backends/nope/lame-duck", null).status()).isEqualTo(404);

    // Ready again, asked of the third member: every member serves it once its check passes.
    TestClient.Reply ready = h.admin(third, HttpMethod.DELETE, "/api/backends/" + duck + "/lame-duck", null);
    assertThat(ready.status()).as(ready.body()).isEqualTo(200);
    awaitTrue(duck + " healthy on every member", 10, () -> h.members().stream()
        .allMatch(m -> "healthy".equals(backend(h.service(m), duck).getString("state"))));
    assertThat(h.bodies(second, 12)).contains(duck);

    // A backend added on the second member appears on all; removed on the first, it leaves all.
    TestBackend extra = TestBackend.start(vertx, req -> req.response().end("b9"));
    backends.add(extra);
    JsonArray add = new JsonArray().add(new JsonObject().put("id", "b9")
        .put("url", "http://127.0.0.1:" + extra.port()).put("capacity", 10));
    TestClient.Reply added = h.admin(second, HttpMethod.POST, "/api/services/" + SERVICE + "/backends", add.encode());
    assertThat(added.status()).as(added.body()).isEqualTo(201);
    awaitTrue("b9 listed by every member", 5, () -> h.members().stream().allMatch(m -> backend(h.service(m), "b9") != null));
    assertThat(h.admin(third, HttpMethod.POST, "/api/services/" + SERVICE + "/backends", "[{\"capacity\": 1}]").status())
        .isEqualTo(400);
    assertThat(h.admin(third, HttpMethod.POST, "/api/services/nope/backends", add.encode()).status()).isEqualTo(404);
    TestClient.Reply removed = h.admin(first, HttpMethod.DELETE, "/api/services/" + SERVICE + "/backends/b9", null);
    assertThat(removed.status()).as(removed.body()).isEqualTo(200);
    awaitTrue("b9 gone from every member", 10, () -> h.members().stream().allMatch(m -> backend(h.service(m), "b9") == null));

    // The third member stops: the two others re-subset as clients 0 and 1 of 2.
    third.process().destroy();
    assertThat(third.process().waitFor(20, TimeUnit.SECONDS)).as("third member exits on SIGTERM").isTrue();
    List<Member> rest = List.of(first, second);
    awaitTrue("the two remaining members report clientCount 2", 30,
        () -> rest.stream().allMatch(m -> h.service(m).getInteger("clientCount") == 2));
    Set<Integer> ids = new HashSet<>();
    Set<String> covered = new TreeSet<>();
    for (Member m : rest) {
      JsonObject s = h.service(m);
      ids.add(s.getInteger("clientId"));
      Set<String> subset = inSubset(s);
      assertThat(subset).hasSize(SUBSET_SIZE);
      assertThat(covered).doesNotContainAnyElementsOf(subset);
      covered.addAll(subset);
      assertThat(h.bodies(m, 12)).isEqualTo(subset);
    }
    assertThat(ids).containsExactlyInAnyOrder(0, 1);
  }

  private JsonArray services() {
    JsonArray list = new JsonArray();
    for (int i = 0; i < BACKENDS; i++) {
      list.add(new JsonObject().put("id", "b" + i).put("url", "http://127.0.0.1:" + backends.get(i).port())
          .put("capacity", 10));
    }
    return new JsonArray().add(new JsonObject()
        .put("name", SERVICE)
        .put("strategy", "round-robin")
        .put("subsetSize", SUBSET_SIZE)
        .put("healthCheck", new JsonObject().put("path", "/health").put("intervalMs", 300).put("timeoutMs", 250)
            .put("healthyThreshold", 1).put("unhealthyThreshold", 2))
        .put("backends", list));
  }
}
