package dev.fairway.cluster;

import static dev.fairway.bench.ClusterCapacityLoad.loop;
import static dev.fairway.cluster.ClusterHarness.awaitTrue;
import static dev.fairway.cluster.ClusterHarness.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.cluster.ClusterHarness.Member;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25's shared capacity: three Fairway JVMs in front of ONE backend of capacity 20 (served by
 * this JVM, each request held 50-100 ms), with 80 % of the clients on member 0 and 10 % on each
 * other member, more than 20 slots' worth: the backend never sees more than 20 requests at once,
 * every request waits rather than fails, and member 0 holds most of the 20 within 5 s.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class SharedCapacityIT {
  private static final String TOKEN = "shared-capacity-token-0123456789";
  private static final String SERVICE = "api";
  private static final int CAPACITY = 20;
  /** Concurrent client loops per member: 24 + 3 + 3 = 30, 80 % through member 0. */
  private static final int[] LOOPS = {24, 3, 3};
  private static final long LOAD_MS = 8_000;

  @TempDir
  Path dir;

  private Vertx vertx;
  private ClusterHarness cluster;
  private TestBackend backend;

  @BeforeEach
  void setUp() throws Exception {
    vertx = TestVertx.create();
    cluster = new ClusterHarness(vertx, dir, TOKEN, SERVICE, 3);
    AtomicInteger n = new AtomicInteger();
    backend = TestBackend.start(vertx, req -> vertx.setTimer(50 + n.getAndIncrement() % 51,
        id -> req.response().end("b1")));
  }

  @AfterEach
  void tearDown() throws Exception {
    cluster.close();
    backend.close();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void threeMembersNeverPutMoreThanTheCapacityOnTheBackendAndTheBusyOneGetsMostOfIt() throws Throwable {
    try {
      run();
    } catch (Throwable e) {
      throw new AssertionError(e.getMessage() + "\n" + cluster.logs(), e);
    }
  }

  private void run() throws Exception {
    Member first = cluster.launch(0, this::config);
    cluster.awaitServing(first, 60);
    cluster.launch(1, this::config);
    cluster.launch(2, this::config);
    List<Member> members = cluster.members();
    awaitTrue("three members, shares of b1 summing to " + CAPACITY, 60, () -> {
      List<Integer> shares = shares(members);
      return shares.stream().allMatch(s -> s > 0) && shares.stream().mapToInt(Integer::intValue).sum() == CAPACITY
          && members.stream().allMatch(m -> cluster.service(m).getInteger("clientCount") == 3);
    });

    HttpClient load = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
        new PoolOptions().setHttp1MaxSize(32));
    Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    long start = System.nanoTime();
    long until = start + TimeUnit.MILLISECONDS.toNanos(LOAD_MS);
    CountDownLatch done = new CountDownLatch(LOOPS[0] + LOOPS[1] + LOOPS[2]);
    for (int i = 0; i < 3; i++) {
      int port = members.get(i).proxyPort();
      for (int k = 0; k < LOOPS[i]; k++) {
        vertx.runOnContext(v -> loop(load, port, until, statuses, done));
      }
    }
    Map<Long, List<Integer>> timeline = new TreeMap<>();
    long busyAtMs = -1;
    while (done.getCount() > 0 && System.nanoTime() < until + TimeUnit.SECONDS.toNanos(30)) {
      long at = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      List<Integer> shares = shares(members);
      timeline.put(at, shares);
      if (busyAtMs < 0 && shares.get(0) >= 12) {
        busyAtMs = at;
      }
      done.await(250, TimeUnit.MILLISECONDS);
    }
    assertThat(done.getCount()).as("client loops still running").isZero();
    String story = "shares (members 0, 1, 2) by ms since the skew started: " + timeline + "; statuses " + statuses;

    assertThat(backend.peak()).as("backend's peak concurrency; " + story).isLessThanOrEqualTo(CAPACITY);
    assertThat(statuses.keySet()).as(story).containsExactly(200);
    assertThat(statuses.get(200).get()).as(story).isGreaterThan(500);
    assertThat(busyAtMs).as("ms until member 0 held 12 or more of the 20; " + story).isBetween(0L, 5_000L);
    for (List<Integer> shares : timeline.values()) {
      assertThat(shares.stream().mapToInt(Integer::intValue).sum()).as(story).isLessThanOrEqualTo(CAPACITY);
    }
    int share = shares(members).get(0);
    String metrics = TestClient.get(vertx, cluster.client(), members.get(0).adminPort(), "/metrics").body();
    assertThat(metrics).contains("fairway_backend_capacity_share{backend=\"b1\"} " + share + ".0");
  }


  /** Each member's share of b1, in member order (-1 while a member does not say). */
  private List<Integer> shares(List<Member> members) {
    List<Integer> out = new ArrayList<>();
    for (Member m : members) {
      JsonObject s = cluster.serviceOrNull(m);
      JsonObject b = s == null ? null : backend(s, "b1");
      out.add(b == null ? -1 : b.getInteger("share", -1));
    }
    return out;
  }

  private JsonObject config(int proxyPort, int adminPort) {
    return new JsonObject()
        .put("proxy", new JsonObject().put("host", "127.0.0.1").put("port", proxyPort).put("instances", 1)
            .put("drainGraceMs", 0).put("drainTimeoutMs", 1000))
        .put("admin", new JsonObject().put("host", "127.0.0.1").put("port", adminPort).put("token", TOKEN))
        .put("cluster", new JsonObject().put("leaseIntervalMs", 250))
        .put("services", new JsonArray().add(new JsonObject()
            .put("name", SERVICE)
            .put("strategy", "least-loaded")
            .put("slots", new JsonObject().put("waitTimeoutMs", 20_000))
            .put("healthCheck", new JsonObject().put("path", "/health").put("intervalMs", 500).put("timeoutMs", 400)
                .put("healthyThreshold", 1).put("unhealthyThreshold", 3))
            .put("backends", new JsonArray().add(new JsonObject().put("id", "b1")
                .put("url", "http://127.0.0.1:" + backend.port()).put("capacity", CAPACITY)))));
  }
}
