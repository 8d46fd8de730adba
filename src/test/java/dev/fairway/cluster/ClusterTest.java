package dev.fairway.cluster;

import dev.fairway.cluster.ClusterHarness.Member;
import dev.fairway.testing.TestVertx;
import static dev.fairway.cluster.ClusterHarness.awaitTrue;
import static dev.fairway.cluster.ClusterHarness.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
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
 * loopback in front of nine backends served by this JVM: client ids are dense, subsets are
 * disjoint and cover every backend, admin commands made on one member reach all, and a member that
 * stops makes the others re-subset ({@code reclaimMs: 0}). With a reclaim grace, a member that
 * restarts under the same node name gets its old id back and nobody else's id or subset moves;
 * one that stays away past the grace is compacted with a single reassignment.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class ClusterTest {
  private static final String TOKEN = "cluster-test-token-0123456789";
  private static final String SERVICE = "api";
  private static final int BACKENDS = 9;
  private static final int SUBSET_SIZE = 3;

  @TempDir
  Path dir;

  private Vertx vertx;
  private HttpClient client;
  private final List<TestBackend> backends = new ArrayList<>();
  private List<Member> members;
  private ClusterHarness cluster;

  @BeforeEach
  void setUp() throws IOException {
    vertx = TestVertx.create();
    cluster = new ClusterHarness(vertx, dir, TOKEN, SERVICE, 3);
    members = cluster.members();
    client = cluster.client();
    for (int i = 0; i < BACKENDS; i++) {
      String id = "b" + i;
      backends.add(TestBackend.start(vertx, req -> req.response().end(id)));
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    cluster.close();
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
      throw new AssertionError(e.getMessage() + "\n" + cluster.logs(), e);
    }
  }

  private void run() throws Exception {
    // The first member forms the cluster alone; the two others then join it (no split brain).
    Member first = cluster.launch(0, this::fairwayConfig);
    cluster.awaitServing(first, 60);
    Member second = cluster.launch(1, this::fairwayConfig);
    Member third = cluster.launch(2, this::fairwayConfig);
    awaitTrue("all three members report clientCount 3", 60,
        () -> members.stream().allMatch(m -> serviceOrNull(m) != null && serviceOrNull(m).getInteger("clientCount") == 3));

    // Client ids 0, 1, 2; disjoint subsets of 3 that cover the 9 backends.
    Map<Integer, Member> byClientId = new TreeMap<>();
    Map<Member, Set<String>> subsetOf = new HashMap<>();
    for (Member m : members) {
      JsonObject s = service(m);
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
    for (Member m : members) {
      assertThat(bodies(m, 12)).as("backends reached through member %d", m.index())
          .isEqualTo(subsetOf.get(m));
    }

    // Lame duck asked of the first member, for a backend only the second member uses.
    String duck = subsetOf.get(second).iterator().next();
    TestBackend duckBackend = backends.get(Integer.parseInt(duck.substring(1)));
    long t0 = System.nanoTime();
    TestClient.Reply lame = admin(first, HttpMethod.POST, "/api/backends/" + duck + "/lame-duck", null);
    assertThat(lame.status()).as(lame.body()).isEqualTo(200);
    assertThat(new JsonObject(lame.body()).getString("state")).isEqualTo("lame-duck");
    long left = TimeUnit.SECONDS.toMillis(1) - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    if (left > 0) {
      Thread.sleep(left);
    }
    int before = duckBackend.requests();
    for (Member m : members) {
      Set<String> reached = bodies(m, 12);
      assertThat(reached).as("member %d one second after the lame-duck call", m.index()).doesNotContain(duck);
    }
    assertThat(duckBackend.requests()).as("requests to the lame duck " + duck).isEqualTo(before);
    for (Member m : members) {
      assertThat(backend(service(m), duck).getString("state")).as("member %d", m.index()).isEqualTo("lame-duck");
    }
    // Validation stays local: an unknown id is 404 on the member asked.
    assertThat(admin(third, HttpMethod.POST, "/api/backends/nope/lame-duck", null).status()).isEqualTo(404);

    // Ready again, asked of the third member: every member serves it once its check passes.
    TestClient.Reply ready = admin(third, HttpMethod.DELETE, "/api/backends/" + duck + "/lame-duck", null);
    assertThat(ready.status()).as(ready.body()).isEqualTo(200);
    awaitTrue(duck + " healthy on every member", 10, () -> members.stream()
        .allMatch(m -> "healthy".equals(backend(service(m), duck).getString("state"))));
    assertThat(bodies(second, 12)).contains(duck);

    // A backend added on the second member appears on all; removed on the first, it leaves all.
    TestBackend extra = TestBackend.start(vertx, req -> req.response().end("b9"));
    backends.add(extra);
    JsonArray add = new JsonArray().add(new JsonObject().put("id", "b9")
        .put("url", "http://127.0.0.1:" + extra.port()).put("capacity", 10));
    TestClient.Reply added = admin(second, HttpMethod.POST, "/api/services/" + SERVICE + "/backends", add.encode());
    assertThat(added.status()).as(added.body()).isEqualTo(201);
    awaitTrue("b9 listed by every member", 5, () -> members.stream().allMatch(m -> backend(service(m), "b9") != null));
    assertThat(admin(third, HttpMethod.POST, "/api/services/" + SERVICE + "/backends", "[{\"capacity\": 1}]").status())
        .isEqualTo(400);
    assertThat(admin(third, HttpMethod.POST, "/api/services/nope/backends", add.encode()).status()).isEqualTo(404);
    TestClient.Reply removed = admin(first, HttpMethod.DELETE, "/api/services/" + SERVICE + "/backends/b9", null);
    assertThat(removed.status()).as(removed.body()).isEqualTo(200);
    awaitTrue("b9 gone from every member", 10, () -> members.stream().allMatch(m -> backend(service(m), "b9") == null));

    // The third member stops: the two others re-subset as clients 0 and 1 of 2.
    third.process().destroy();
    assertThat(third.process().waitFor(20, TimeUnit.SECONDS)).as("third member exits on SIGTERM").isTrue();
    List<Member> rest = List.of(first, second);
    awaitTrue("the two remaining members report clientCount 2", 30,
        () -> rest.stream().allMatch(m -> service(m).getInteger("clientCount") == 2));
    Set<Integer> ids = new HashSet<>();
    Set<String> covered = new TreeSet<>();
    for (Member m : rest) {
      JsonObject s = service(m);
      ids.add(s.getInteger("clientId"));
      Set<String> subset = inSubset(s);
      assertThat(subset).hasSize(SUBSET_SIZE);
      assertThat(covered).doesNotContainAnyElementsOf(subset);
      covered.addAll(subset);
      // A backend new to a member's subset serves once that member's lease round for it answers
      // (shared capacity; slower while Hazelcast moves the leaver's partitions): until then the
      // member's other subset members take its requests.
      awaitTrue("member " + m.index() + " reaches its whole new subset " + subset, 10,
          () -> bodies(m, 12).equals(subset));
    }
    assertThat(ids).containsExactlyInAnyOrder(0, 1);
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void aRestartedMemberReclaimsItsIdAndALongAbsenceIsCompacted() throws Throwable {
    try {
      restartAndCompact();
    } catch (Throwable e) {
      throw new AssertionError(e.getMessage() + "\n" + cluster.logs(), e);
    }
  }

  private void restartAndCompact() throws Exception {
        long graceMs = 30_000;
    Member a = cluster.launch(0, named("a", graceMs));
    cluster.awaitServing(a, 60);
    Member b = cluster.launch(1, named("b", graceMs));
    cluster.awaitServing(b, 60);
    Member c = cluster.launch(2, named("c", graceMs));
    awaitTrue("all three members report clientCount 3", 60,
        () -> members.stream().allMatch(m -> serviceOrNull(m) != null && serviceOrNull(m).getInteger("clientCount") == 3));
    // Names take ids in join order: a 0, b 1, c 2.
    Map<String, JsonObject> before = new TreeMap<>();
    for (Member m : List.of(a, b, c)) {
      JsonObject s = service(m);
      before.put(s.getString("nodeName"), s);
    }
    assertThat(before.keySet()).containsExactly("a", "b", "c");
    assertThat(before.values().stream().map(s -> s.getInteger("clientId")).toList()).containsExactly(0, 1, 2);

    // b stops and restarts under its name within the grace: it gets id 1 back, a's and c's ids
    // and subsets never change (the count stays 3 while id 1 is reserved).
    Map<Member, Integer> recomputed = Map.of(a, occurrences(a, "subsets recomputed"),
        c, occurrences(c, "subsets recomputed"));
    b.process().destroy();
    assertThat(b.process().waitFor(20, TimeUnit.SECONDS)).as("b exits on SIGTERM").isTrue();
    awaitLog(a, "b left, id 1 reserved for", 20);
    assertUnchanged(before, a, c);
    Member b2 = cluster.launch(1, named("b", graceMs));
    cluster.awaitServing(b2, 60);
    awaitLog(a, "b came back, reclaimed id 1", 20);
    JsonObject back = service(b2);
    assertThat(back.getString("nodeName")).isEqualTo("b");
    assertThat(back.getInteger("clientId") + " of " + back.getInteger("clientCount")).isEqualTo("1 of 3");
    assertThat(inSubset(back)).isEqualTo(inSubset(before.get("b")));
    assertUnchanged(before, a, c);
    for (Member m : List.of(a, c)) {
      assertThat(occurrences(m, "subsets recomputed")).as("member %s's log", m.index()).isEqualTo(recomputed.get(m));
    }

    // a stops for good: its id stays reserved for the grace, then c (the highest id) moves into
    // id 0 and b keeps id 1: dense again with one reassignment.
    long stopped = System.nanoTime();
    a.process().destroy();
    assertThat(a.process().waitFor(20, TimeUnit.SECONDS)).as("a exits on SIGTERM").isTrue();
    awaitLog(c, "a left, id 0 reserved for", 20);
    assertThat(service(c).getInteger("clientId") + " of " + service(c).getInteger("clientCount")).isEqualTo("2 of 3");
    awaitTrue("c compacted into id 0", 60, () -> service(c).getInteger("clientId") == 0);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped)).as("not before the grace ran out")
        .isGreaterThanOrEqualTo(graceMs);
    awaitLog(b2, "a's reservation of id 0 expired; c moved from id 2 to id 0", 10);
    for (Member m : List.of(b2, c)) {
      JsonObject s = service(m);
      assertThat(s.getInteger("clientCount")).isEqualTo(2);
      assertThat(s.getInteger("clientId")).isEqualTo(m == b2 ? 1 : 0);
    }
  }

  /** The config of a member named {@code nodeName} with a reclaim grace of {@code reclaimMs}. */
  private ClusterHarness.ConfigFor named(String nodeName, long reclaimMs) {
    return (proxyPort, adminPort) -> fairwayConfig(proxyPort, adminPort)
        .put("cluster", new JsonObject().put("nodeName", nodeName).put("reclaimMs", reclaimMs));
  }

  /** The members' client ids, counts and subsets are those of {@code before}. */
  private void assertUnchanged(Map<String, JsonObject> before, Member... now) {
    for (Member m : now) {
      JsonObject s = service(m);
      JsonObject was = before.get(s.getString("nodeName"));
      assertThat(s.getInteger("clientId") + " of " + s.getInteger("clientCount")).as(s.getString("nodeName"))
          .isEqualTo(was.getInteger("clientId") + " of " + was.getInteger("clientCount"));
      assertThat(inSubset(s)).as(s.getString("nodeName")).isEqualTo(inSubset(was));
    }
  }

  private static int occurrences(Member m, String text) throws IOException {
    return Files.readString(m.log()).split(java.util.regex.Pattern.quote(text), -1).length - 1;
  }

  private static void awaitLog(Member m, String text, int seconds) throws Exception {
    awaitTrue("member " + m.index() + " logs '" + text + "'", seconds, () -> Files.readString(m.log()).contains(text));
  }

  // ---- members

  /** A member with a derived node name whose departure is compacted at once ({@code reclaimMs: 0}). */
  private JsonObject fairwayConfig(int proxyPort, int adminPort) {
    JsonArray list = new JsonArray();
    for (int i = 0; i < BACKENDS; i++) {
      list.add(new JsonObject().put("id", "b" + i).put("url", "http://127.0.0.1:" + backends.get(i).port())
          .put("capacity", 10));
    }
    return new JsonObject()
        .put("proxy", new JsonObject().put("host", "127.0.0.1").put("port", proxyPort).put("instances", 1)
            .put("drainGraceMs", 0).put("drainTimeoutMs", 1000))
        .put("admin", new JsonObject().put("host", "127.0.0.1").put("port", adminPort).put("token", TOKEN))
        .put("cluster", new JsonObject().put("reclaimMs", 0))
        .put("services", new JsonArray().add(new JsonObject()
            .put("name", SERVICE)
            .put("strategy", "round-robin")
            .put("subsetSize", SUBSET_SIZE)
            .put("healthCheck", new JsonObject().put("path", "/health").put("intervalMs", 300).put("timeoutMs", 250)
                .put("healthyThreshold", 1).put("unhealthyThreshold", 2))
            .put("backends", list)));
  }

  private Set<String> bodies(Member m, int n) throws Exception {
    return cluster.bodies(m, n);
  }

  private TestClient.Reply admin(Member m, HttpMethod method, String path, String body) throws Exception {
    return cluster.admin(m, method, path, body);
  }

  private JsonObject service(Member m) {
    return cluster.service(m);
  }

  private JsonObject serviceOrNull(Member m) {
    return cluster.serviceOrNull(m);
  }

  private static Set<String> inSubset(JsonObject service) {
    return ClusterHarness.inSubset(service);
  }
}
