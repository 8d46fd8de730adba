package dev.fairway.bench;

import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The backend and the load of {@code bench/cluster-capacity.sh}: one backend on a free port
 * (printed first: {@code backend port 41234}) that holds each request 50-100 ms and records its
 * peak concurrency; once every member's admin
 * port ({@code --admins 9101,9102,9103}) lists the backend, closed-loop
 * clients ({@code --loops 24,3,3}, per member, through {@code --proxies}) for {@code --seconds};
 * every 500 ms one line of the members' shares, then the totals.
 *
 * <p>Example: {@code ClusterCapacityLoad --proxies 8101,8102,8103 --admins
 * 9101,9102,9103 --loops 24,3,3 --seconds 10} prints {@code t=0.5s shares 7 7 6 in-flight 19} ...
 * then {@code peak backend concurrency 20 (capacity 20)}, {@code requests/s 283.4} and the statuses.
 */
public final class ClusterCapacityLoad {
  private ClusterCapacityLoad() {
  }

  public static void main(String[] args) throws Exception {
    Flags f = Flags.parse(args);
    Vertx vertx = Vertx.vertx();
    AtomicInteger n = new AtomicInteger();
    TestBackend backend = TestBackend.start(vertx, req -> vertx.setTimer(50 + n.getAndIncrement() % 51,
        id -> req.response().end("b1")));
    System.out.println("backend port " + backend.port());
    int[] proxies = ports(f.string("proxies", ""));
    int[] admins = ports(f.string("admins", ""));
    int[] loops = ports(f.string("loops", "24,3,3"));
    HttpClient admin = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false));
    long ready = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    int capacity = f.integer("capacity", 20);
    while (shares(vertx, admin, admins, capacity).contains(-1)) {
      if (System.nanoTime() > ready) {
        System.out.println("members did not list a share within 120 s");
        System.exit(1);
      }
      Thread.sleep(250);
    }
    HttpClient load = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
        new PoolOptions().setHttp1MaxSize(64));
    Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    long start = System.nanoTime();
    long until = start + TimeUnit.SECONDS.toNanos(f.integer("seconds", 10));
    int total = 0;
    for (int l : loops) {
      total += l;
    }
    CountDownLatch done = new CountDownLatch(total);
    for (int i = 0; i < proxies.length; i++) {
      for (int k = 0; k < loops[i]; k++) {
        int port = proxies[i];
        vertx.runOnContext(v -> loop(load, port, until, statuses, done));
      }
    }
    while (!done.await(500, TimeUnit.MILLISECONDS)) {
      System.out.printf("t=%.1fs shares %s in-flight %d%n", (System.nanoTime() - start) / 1e9,
          String.join(" ", shares(vertx, admin, admins, capacity).stream().map(String::valueOf).toList()), backend.inFlight());
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    int ok = statuses.getOrDefault(200, new AtomicInteger()).get();
    System.out.printf("peak backend concurrency %d (capacity %d)%n", backend.peak(), capacity);
    System.out.printf("requests/s %.1f (%d in %.1f s), statuses %s%n", ok / seconds, ok, seconds, statuses);
    System.exit(0);
  }

  /**
   * One closed-loop client: GET / on {@code port} until {@code until} (nanoTime), counting each
   * status ({@code -1} for a failed request) in {@code statuses}; counts {@code done} down at the end.
   */
  public static void loop(HttpClient load, int port, long until, Map<Integer, AtomicInteger> statuses,
                          CountDownLatch done) {
    if (System.nanoTime() >= until) {
      done.countDown();
      return;
    }
    load.request(HttpMethod.GET, port, "127.0.0.1", "/")
        .compose(req -> req.send())
        .compose(resp -> resp.body().map(b -> resp.statusCode()))
        .onComplete(ar -> {
          statuses.computeIfAbsent(ar.succeeded() ? ar.result() : -1, k -> new AtomicInteger()).incrementAndGet();
          loop(load, port, until, statuses, done);
        });
  }

  /** Each member's share of b1 from its admin API ({@code capacity} when not shared), -1 where it does not answer (yet). */
  private static List<Integer> shares(Vertx vertx, HttpClient admin, int[] admins, int capacity) {
    List<Integer> out = new ArrayList<>();
    for (int port : admins) {
      int share = -1;
      try {
        TestClient.Reply r = TestClient.get(vertx, admin, port, "/api/services");
        JsonArray backends = new JsonArray(r.body()).getJsonObject(0).getJsonArray("backends");
        share = backends.getJsonObject(0).getInteger("share", capacity);
      } catch (Exception e) {
        share = -1;
      }
      out.add(share);
    }
    return out;
  }

  private static int[] ports(String csv) {
    return csv.isBlank() ? new int[0] : java.util.Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
  }
}
