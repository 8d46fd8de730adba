package dev.fairway.cluster;

import dev.fairway.testing.TestVertx;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
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
  private final List<Member> members = new ArrayList<>();

  /** One Fairway child process and its ports. */
  private record Member(int index, Process process, int proxyPort, int adminPort, Path log) {
  }

  @BeforeEach
  void setUp() {
    vertx = TestVertx.create();
    client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false));
    for (int i = 0; i < BACKENDS; i++) {
      String id = "b" + i;
      backends.add(TestBackend.start(vertx, req -> req.response().end(id)));
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    for (Member m : members) {
      m.process().destroy();
    }
    for (Member m : members) {
      if (!m.process().waitFor(10, TimeUnit.SECONDS)) {
        m.process().destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    }
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
      throw new AssertionError(e.getMessage() + "\n" + logs(), e);
    }
  }

  private void run() throws Exception {
    String clusterName = "fairway-test-" + UUID.randomUUID();
    int[] hazelcastPorts = {freePort(), freePort(), freePort()};

    // The first member forms the cluster alone; the two others then join it (no split brain).
    Member first = launch(0, clusterName, hazelcastPorts);
    awaitServing(first, 60);
    Member second = launch(1, clusterName, hazelcastPorts);
    Member third = launch(2, clusterName, hazelcastPorts);
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
      assertThat(bodies(m, 12)).isEqualTo(subset);
    }
    assertThat(ids).containsExactlyInAnyOrder(0, 1);
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void aRestartedMemberReclaimsItsIdAndALongAbsenceIsCompacted() throws Throwable {
    try {
      restartAndCompact();
    } catch (Throwable e) {
      throw new AssertionError(e.getMessage() + "\n" + logs(), e);
    }
  }

  private void restartAndCompact() throws Exception {
    String clusterName = "fairway-test-" + UUID.randomUUID();
    int[] hazelcastPorts = {freePort(), freePort(), freePort()};
    long graceMs = 30_000;
    Member a = launch(0, clusterName, hazelcastPorts, named("a", graceMs));
    awaitServing(a, 60);
    Member b = launch(1, clusterName, hazelcastPorts, named("b", graceMs));
    awaitServing(b, 60);
    Member c = launch(2, clusterName, hazelcastPorts, named("c", graceMs));
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
    Member b2 = launch(1, clusterName, hazelcastPorts, named("b", graceMs));
    awaitServing(b2, 60);
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

  private static JsonObject named(String nodeName, long reclaimMs) {
    return new JsonObject().put("nodeName", nodeName).put("reclaimMs", reclaimMs);
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

  // ---- child processes

  /** A member with a derived node name whose departure is compacted at once ({@code reclaimMs: 0}). */
  private Member launch(int index, String clusterName, int[] hazelcastPorts) throws IOException {
    return launch(index, clusterName, hazelcastPorts, new JsonObject().put("reclaimMs", 0));
  }

  /** A member on Hazelcast port {@code hazelcastPorts[index]} with {@code cluster} as its config's cluster object. */
  private Member launch(int index, String clusterName, int[] hazelcastPorts, JsonObject cluster) throws IOException {
    int proxyPort = freePort();
    int adminPort = freePort();
    int launch = members.size();
    Path conf = Files.writeString(dir.resolve("config-" + launch + ".json"),
        fairwayConfig(proxyPort, adminPort).put("cluster", cluster).encode());
    Path clusterXml = Files.writeString(dir.resolve("cluster-" + launch + ".xml"),
        clusterXml(clusterName, hazelcastPorts[index], hazelcastPorts));
    Path log = dir.resolve("member-" + launch + ".log");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder pb = new ProcessBuilder(java.toString(), "-Xmx160m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-cp", System.getProperty("java.class.path"), "dev.fairway.Main",
        "-cluster", "-cluster-conf", clusterXml.toString(), "-conf", conf.toString())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    pb.environment().remove("FAIRWAY_ADMIN_TOKEN");
    pb.environment().remove(ClusterConfig.ENV);
    Member m = new Member(index, pb.start(), proxyPort, adminPort, log);
    members.add(m);
    return m;
  }

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
        .put("services", new JsonArray().add(new JsonObject()
            .put("name", SERVICE)
            .put("strategy", "round-robin")
            .put("subsetSize", SUBSET_SIZE)
            .put("healthCheck", new JsonObject().put("path", "/health").put("intervalMs", 300).put("timeoutMs", 250)
                .put("healthyThreshold", 1).put("unhealthyThreshold", 2))
            .put("backends", list)));
  }

  /** Hazelcast on one fixed loopback port, the three ports as TCP members, fast join and merge. */
  private static String clusterXml(String clusterName, int port, int[] all) {
    String memberList = Arrays.stream(all).mapToObj(p -> "<member>127.0.0.1:" + p + "</member>")
        .collect(Collectors.joining());
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <hazelcast xmlns="http://www.hazelcast.com/schema/config">
          <cluster-name>%s</cluster-name>
          <properties>
            <property name="hazelcast.logging.type">slf4j</property>
            <property name="hazelcast.phone.home.enabled">false</property>
            <property name="hazelcast.wait.seconds.before.join">0</property>
            <property name="hazelcast.max.join.seconds">3</property>
            <property name="hazelcast.merge.first.run.delay.seconds">5</property>
            <property name="hazelcast.merge.next.run.delay.seconds">5</property>
            <property name="hazelcast.heartbeat.interval.seconds">1</property>
            <property name="hazelcast.max.no.heartbeat.seconds">10</property>
            <property name="hazelcast.socket.bind.any">false</property>
          </properties>
          <network>
            <port auto-increment="false">%d</port>
            <interfaces enabled="true"><interface>127.0.0.1</interface></interfaces>
            <join>
              <auto-detection enabled="false"/>
              <multicast enabled="false"/>
              <tcp-ip enabled="true"><member-list>%s</member-list></tcp-ip>
            </join>
          </network>
          <multimap name="__vertx.subs">
            <backup-count>1</backup-count>
            <value-collection-type>SET</value-collection-type>
          </multimap>
        </hazelcast>
        """.formatted(clusterName, port, memberList);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private String logs() {
    StringBuilder out = new StringBuilder();
    for (Member m : members) {
      out.append("---- member ").append(m.index()).append(" ").append(m.log().getFileName()).append(" (")
          .append(m.process().isAlive() ? "running" : "exited " + m.process().exitValue()).append(")\n");
      try {
        List<String> lines = Files.readAllLines(m.log(), StandardCharsets.UTF_8);
        lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(l -> out.append(l).append('\n'));
      } catch (IOException e) {
        out.append(e).append('\n');
      }
    }
    return out.toString();
  }

  // ---- HTTP

  private void awaitServing(Member m, int seconds) throws Exception {
    awaitTrue("member " + m.index() + " serving", seconds, () -> {
      if (!m.process().isAlive()) {
        throw new AssertionError("member " + m.index() + " exited with " + m.process().exitValue());
      }
      return serviceOrNull(m) != null;
    });
  }

  private static void awaitTrue(String what, int seconds, Check check) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (check.ok()) {
          return;
        }
      } catch (AssertionError e) {
        throw e;
      } catch (Exception e) {
        last = e;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("not within " + seconds + " s: " + what + (last == null ? "" : " (last error: " + last + ")"));
  }

  @FunctionalInterface
  private interface Check {
    boolean ok() throws Exception;
  }

  /** The bodies (backend ids) of {@code n} sequential requests through a member's proxy, all 200. */
  private Set<String> bodies(Member m, int n) throws Exception {
    Set<String> seen = new TreeSet<>();
    for (int i = 0; i < n; i++) {
      TestClient.Reply r = TestClient.get(vertx, client, m.proxyPort(), "/");
      assertThat(r.status()).as("through member %d: %s", m.index(), r.body()).isEqualTo(200);
      seen.add(r.body());
    }
    return seen;
  }

  private TestClient.Reply admin(Member m, HttpMethod method, String path, String body) throws Exception {
    RequestOptions options = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(m.adminPort())
        .setURI(path).putHeader("Authorization", "Bearer " + TOKEN);
    return TestClient.onLoop(vertx, () -> client.request(options)
            .compose(req -> body == null ? req.send() : req.send(Buffer.buffer(body)))
            .compose(resp -> resp.body().map(b -> new TestClient.Reply(resp.statusCode(), resp.headers(), b.toString()))))
        .await(10, TimeUnit.SECONDS);
  }

  /** The service's JSON from a member's {@code GET /api/services}; IllegalStateException if it fails. */
  private JsonObject service(Member m) {
    TestClient.Reply r;
    try {
      r = TestClient.get(vertx, client, m.adminPort(), "/api/services");
    } catch (Exception e) {
      throw new IllegalStateException("GET /api/services on member " + m.index() + " failed: " + e, e);
    }
    if (r.status() != 200) {
      throw new IllegalStateException("GET /api/services on member " + m.index() + ": " + r.status() + " " + r.body());
    }
    JsonArray services = new JsonArray(r.body());
    for (int i = 0; i < services.size(); i++) {
      if (SERVICE.equals(services.getJsonObject(i).getString("name"))) {
        return services.getJsonObject(i);
      }
    }
    throw new IllegalStateException("no service " + SERVICE + " in " + r.body());
  }

  /** The service's JSON, or null while the member does not answer yet. */
  private JsonObject serviceOrNull(Member m) {
    try {
      return service(m);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static JsonObject backend(JsonObject service, String id) {
    return service.getJsonArray("backends").stream().map(JsonObject.class::cast)
        .filter(b -> id.equals(b.getString("id"))).findFirst().orElse(null);
  }

  private static Set<String> inSubset(JsonObject service) {
    Predicate<JsonObject> in = b -> b.getBoolean("inSubset");
    return service.getJsonArray("backends").stream().map(JsonObject.class::cast).filter(in)
        .map(b -> b.getString("id")).collect(Collectors.toCollection(TreeSet::new));
  }
}
