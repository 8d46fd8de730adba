package dev.fairway.cluster;

import static dev.fairway.cluster.ClusterHarness.awaitTrue;
import static dev.fairway.cluster.ClusterHarness.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.cluster.ClusterHarness.Member;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runtime state for late joiners: two real Fairway JVMs in a cluster, a lame duck and an added
 * backend posted to the first, then a third member that starts afterwards from the same config
 * file shows both; the second member's {@code fairway_cluster_command_delay_seconds} counts the
 * commands it got, and a {@code Lame-Duck: true} header seen by the first reaches the second.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class RuntimeReplayTest {
  private static final Logger LOG = LoggerFactory.getLogger(RuntimeReplayTest.class);
  private static final String TOKEN = "cluster-test-token-0123456789";
  private static final String SERVICE = "api";
  private static final Pattern DELAY_COUNT = Pattern.compile("(?m)^fairway_cluster_command_delay_seconds_count (\\S+)$");
  private static final Pattern DELAY_MAX = Pattern.compile("(?m)^fairway_cluster_command_delay_seconds_max (\\S+)$");

  @TempDir
  Path dir;

  private Vertx vertx;
  private ClusterHarness h;
  private final List<TestBackend> backends = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    vertx = TestVertx.create();
    for (int i = 0; i < 3; i++) {
      String id = "b" + i;
      backends.add(TestBackend.start(vertx, req -> {
        if (req.path().equals("/bye")) {
          req.response().putHeader("Lame-Duck", "true");
        }
        req.response().end(id);
      }));
    }
    h = new ClusterHarness(vertx, dir, TOKEN, SERVICE, 3);
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
  void aLateJoinerGetsTheRuntimeChangesAndTheDelayIsMeasured() throws Throwable {
    try {
      run();
    } catch (Throwable e) {
      throw new AssertionError(e.getMessage() + "\n" + h.logs(), e);
    }
  }

  private void run() throws Exception {
    Member a = h.launch(0, this::config);
    h.awaitServing(a, 60);
    Member b = h.launch(1, this::config);
    awaitTrue("both members report clientCount 2", 60, () -> h.members().stream()
        .allMatch(m -> h.serviceOrNull(m) != null && h.serviceOrNull(m).getInteger("clientCount") == 2));

    TestClient.Reply lame = h.admin(a, HttpMethod.POST, "/api/backends/b1/lame-duck", null);
    assertThat(lame.status()).as(lame.body()).isEqualTo(200);
    TestBackend extra = TestBackend.start(vertx, req -> req.response().end("b3"));
    backends.add(extra);
    JsonArray add = new JsonArray().add(new JsonObject().put("id", "b3")
        .put("url", "http://127.0.0.1:" + extra.port()).put("capacity", 7));
    TestClient.Reply added = h.admin(a, HttpMethod.POST, "/api/services/" + SERVICE + "/backends", add.encode());
    assertThat(added.status()).as(added.body()).isEqualTo(201);
    awaitTrue("b1 lame duck and b3 listed on member 1", 10, () -> "lame-duck".equals(state(b, "b1"))
        && backend(h.service(b), "b3") != null);

    // The second member timed both commands from their publication on the first.
    awaitTrue("member 1 counted two cluster commands", 10, () -> delayCount(b) >= 2);
    Matcher max = DELAY_MAX.matcher(h.metrics(b));
    assertThat(max.find()).as("fairway_cluster_command_delay_seconds_max on member 1").isTrue();
    LOG.info("cluster command delay on member 1: count {}, max {} s; {}", delayCount(b), max.group(1),
        h.logLines(b).stream().filter(l -> l.contains("after it was sent")).toList());

    // The third member starts from the same config file and takes both changes from the cluster.
    Member c = h.launch(2, this::config);
    h.awaitServing(c, 60);
    awaitTrue("b1 lame duck and b3 (capacity 7) on the late joiner", 15, () -> "lame-duck".equals(state(c, "b1"))
        && backend(h.service(c), "b3") != null && backend(h.service(c), "b3").getInteger("capacity") == 7);
    assertThat(String.join("\n", h.logLines(c)))
        .contains("cluster: replayed 2 runtime changes from the cluster (1 added backend, 1 lame duck)");
    assertThat(h.bodies(c, 9)).containsExactlyInAnyOrder("b0", "b2", "b3");

    // A Lame-Duck: true answer seen through the first member is relayed to the others at once.
    TestClient.Reply bye = TestClient.get(vertx, vertx.createHttpClient(), a.proxyPort(), "/bye");
    assertThat(bye.status()).isEqualTo(200);
    awaitTrue("member 2 logs the relayed Lame-Duck header of " + bye.body(), 10, () -> h.logLines(c).stream()
        .anyMatch(l -> l.contains("cluster: another member saw Lame-Duck: true from " + bye.body())));
  }

  private String state(Member m, String id) {
    JsonObject backend = backend(h.service(m), id);
    return backend == null ? null : backend.getString("state");
  }

  private double delayCount(Member m) throws Exception {
    Matcher count = DELAY_COUNT.matcher(h.metrics(m));
    return count.find() ? Double.parseDouble(count.group(1)) : 0;
  }

  private JsonObject config(int proxyPort, int adminPort) {
    return new JsonObject()
        .put("proxy", new JsonObject().put("host", "127.0.0.1").put("port", proxyPort).put("instances", 1)
            .put("drainGraceMs", 0).put("drainTimeoutMs", 1000))
        .put("admin", new JsonObject().put("host", "127.0.0.1").put("port", adminPort).put("token", TOKEN))
        .put("services", services());
  }

  private JsonArray services() {
    JsonArray list = new JsonArray();
    for (int i = 0; i < 3; i++) {
      list.add(new JsonObject().put("id", "b" + i).put("url", "http://127.0.0.1:" + backends.get(i).port())
          .put("capacity", 10));
    }
    return new JsonArray().add(new JsonObject()
        .put("name", SERVICE)
        .put("strategy", "round-robin")
        .put("healthCheck", new JsonObject().put("path", "/health").put("intervalMs", 300).put("timeoutMs", 250)
            .put("healthyThreshold", 1).put("unhealthyThreshold", 2))
        .put("backends", list));
  }
}
