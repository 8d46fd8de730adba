package dev.fairway.testing;

import dev.fairway.balancer.SplitMix64;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The load driver of the spread benchmark ({@code bench/spread.sh}): open-loop Poisson arrivals
 * at {@code load} × the fleet's capacity through Fairway, request costs drawn uniformly from
 * 1..{@code maxCost} by a seeded {@link SplitMix64} and sent as {@code x-cost}; after a warm-up
 * it reads every {@link SpreadBackend}'s {@code /stats} directly, again at the end of the
 * measurement, and prints one Markdown table row: each backend's utilization (busy time / wall
 * time over the measurement), the spread max/min of those, the spread of the work sent
 * (assigned service time / wall time, which can exceed 1 where the queue grows), and the
 * requests' outcome.
 *
 * <p>Example: {@code java -cp target/fairway.jar:target/test-classes dev.fairway.testing.SpreadDriver
 * label=weighted-round-robin target=http://127.0.0.1:18180
 * backends=http://127.0.0.1:19101,...,http://127.0.0.1:19106 load=0.7 warmupS=10 measureS=30}
 * prints {@code | weighted-round-robin | 0.70 | 0.702 | ... | 1.03 | ...}.
 *
 * <p>Capacity is computed from what the backends say in {@code /stats}: each does
 * {@code workers / (baseMs × slowness × mean cost)} requests per second. Arrivals are open-loop:
 * a request is sent when its arrival time comes whatever is outstanding, so an overloaded
 * backend shows as queueing, not as a slower driver. The chains start on the driver's event loop
 * (see {@link TestClient#onLoop}).
 *
 * <p>Arguments, {@code key=value}: {@code target}, {@code backends} (comma-separated), {@code label}
 * [-], {@code load} [0.7], {@code maxCost} [10], {@code warmupS} [10], {@code measureS} [30],
 * {@code seed} [1], {@code admin} [unset: admin base URL; if set, the balancer's weights are
 * printed to stderr at the end].
 */
public final class SpreadDriver {
  private static final long S = 1_000_000_000L;

  private SpreadDriver() {
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> a = SpreadBackend.args(args);
    URI target = URI.create(SpreadBackend.required(a, "target"));
    List<URI> backends = Arrays.stream(SpreadBackend.required(a, "backends").split(",")).map(URI::create).toList();
    String label = a.getOrDefault("label", "-");
    double load = Double.parseDouble(a.getOrDefault("load", "0.7"));
    int maxCost = Integer.parseInt(a.getOrDefault("maxCost", "10"));
    long warmupNanos = Long.parseLong(a.getOrDefault("warmupS", "10")) * S;
    long measureNanos = Long.parseLong(a.getOrDefault("measureS", "30")) * S;
    long seed = Long.parseLong(a.getOrDefault("seed", "1"));
    String admin = a.get("admin");

    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    HttpClient client = vertx.createHttpClient(
        new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true).setConnectTimeout(5000),
        new PoolOptions().setHttp1MaxSize(4000).setMaxWaitQueueSize(-1));
    try {
      List<JsonObject> info = stats(vertx, client, backends);
      double capacity = 0;
      double meanCost = (1 + maxCost) / 2.0;
      for (JsonObject s : info) {
        capacity += s.getInteger("workers") * 1000.0 / (s.getDouble("baseMs") * s.getDouble("slowness") * meanCost);
      }
      double rate = load * capacity;
      for (URI b : backends) {
        TestClient.onLoop(vertx, () -> client.request(HttpMethod.POST, b.getPort(), b.getHost(), "/reset")
            .compose(req -> req.send()).compose(resp -> resp.body())).await(10, TimeUnit.SECONDS);
      }
      System.err.printf(Locale.ROOT, "[%s] %s: fleet capacity %.1f req/s, offering %.1f req/s (%.0f%%), "
          + "warm-up %d s, measure %d s%n", java.time.LocalTime.now().withNano(0), label, capacity, rate, load * 100,
          warmupNanos / S, measureNanos / S);

      Load gen = new Load(client, target, rate, maxCost, seed);
      long start = System.nanoTime();
      vertx.runOnContext(v -> gen.start(vertx, start, start + warmupNanos + measureNanos));
      sleepUntil(start + warmupNanos);
      List<JsonObject> before = stats(vertx, client, backends);
      vertx.runOnContext(v -> gen.measuring = true);
      sleepUntil(start + warmupNanos + measureNanos);
      List<JsonObject> after = stats(vertx, client, backends);
      Load done = TestClient.onLoop(vertx, () -> {
        gen.measuring = false;
        return Future.succeededFuture(gen);
      }).await(10, TimeUnit.SECONDS);

      double[] util = new double[backends.size()];
      double[] demand = new double[backends.size()];
      for (int i = 0; i < util.length; i++) {
        double wall = after.get(i).getLong("nowNanos") - before.get(i).getLong("nowNanos");
        int workers = after.get(i).getInteger("workers");
        util[i] = (after.get(i).getLong("busyNanos") - before.get(i).getLong("busyNanos")) / wall / workers;
        demand[i] = (after.get(i).getLong("assignedNanos") - before.get(i).getLong("assignedNanos")) / wall / workers;
      }
      long[] lat = done.latencies();
      StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %-32s | %3.0f%% |", label, load * 100));
      for (double u : util) {
        row.append(String.format(Locale.ROOT, " %.3f |", u));
      }
      row.append(String.format(Locale.ROOT, " **%.2f** | %.2f | %d | %d | %.0f | %.0f |", spread(util), spread(demand),
          done.measuredOk, done.measuredFailed, percentile(lat, 0.5) / 1e6, percentile(lat, 0.99) / 1e6));
      System.out.println(row);
      System.err.printf(Locale.ROOT, "  demand (work sent / wall): %s; requests sent %d, still open at the end %d%n",
          Arrays.toString(Arrays.stream(demand).map(d -> Math.round(d * 1000) / 1000.0).toArray()), done.sent,
          done.sent - done.ok - done.failed);
      if (admin != null) {
        URI ad = URI.create(admin);
        JsonArray services = TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, ad.getPort(), ad.getHost(),
            "/api/services").compose(req -> req.send()).compose(resp -> resp.body()))
            .await(10, TimeUnit.SECONDS).toJsonArray();
        StringBuilder w = new StringBuilder("  balancer view at the end:");
        for (Object o : services.getJsonObject(0).getJsonArray("backends")) {
          JsonObject b = (JsonObject) o;
          w.append(String.format(Locale.ROOT, " %s w=%.1f u=%.2f qps=%.1f;", b.getString("id"), b.getDouble("weight"),
              b.getDouble("utilization"), b.getDouble("qps")));
        }
        System.err.println(w);
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /** The open-loop generator; every field is touched on the driver's one event loop only. */
  private static final class Load {
    private final HttpClient client;
    private final URI target;
    private final double meanGapNanos;
    private final int maxCost;
    private final SplitMix64 random;
    private final List<Long> latencies = new ArrayList<>();
    boolean measuring;
    long sent;
    long ok;
    long failed;
    long measuredOk;
    long measuredFailed;
    private double next;
    private long end;

    Load(HttpClient client, URI target, double rate, int maxCost, long seed) {
      this.client = client;
      this.target = target;
      this.meanGapNanos = S / rate;
      this.maxCost = maxCost;
      this.random = new SplitMix64(seed);
    }

    void start(Vertx vertx, long startNanos, long endNanos) {
      next = startNanos;
      end = endNanos;
      vertx.setPeriodic(5000, id -> {
        if (System.nanoTime() >= end) {
          vertx.cancelTimer(id);
        }
        System.err.printf(Locale.ROOT, "  %4.0f s: sent %d, answered %d, failed %d, open %d%n",
            (System.nanoTime() - startNanos) / 1e9, sent, ok, failed, sent - ok - failed);
      });
      vertx.setPeriodic(1, id -> {
        long now = System.nanoTime();
        if (now >= end) {
          vertx.cancelTimer(id);
          return;
        }
        // every arrival due by now goes out now: the schedule never waits for answers
        while (next <= now) {
          send((long) next);
          next += -Math.log(1 - random.nextDouble()) * meanGapNanos;
        }
      });
    }

    private void send(long due) {
      int cost = 1 + random.nextInt(maxCost);
      sent++;
      RequestOptions ro = new RequestOptions().setMethod(HttpMethod.GET).setHost(target.getHost())
          .setPort(target.getPort()).setURI("/work").putHeader("x-cost", Integer.toString(cost))
          .setIdleTimeout(120_000);
      client.request(ro).compose(req -> req.send()).compose(resp -> resp.body().map(b -> resp.statusCode()))
          .onComplete(ar -> {
            boolean good = ar.succeeded() && ar.result() == 200;
            if (good) {
              ok++;
            } else {
              failed++;
            }
            if (measuring) { // answers that arrive during the measurement, whenever sent
              if (good) {
                measuredOk++;
                latencies.add(System.nanoTime() - due);
              } else {
                measuredFailed++;
              }
            }
          });
    }

    long[] latencies() {
      return latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    }
  }

  private static List<JsonObject> stats(Vertx vertx, HttpClient client, List<URI> backends) throws Exception {
    List<Future<JsonObject>> all = new ArrayList<>();
    for (URI b : backends) {
      all.add(TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, b.getPort(), b.getHost(), "/stats")
          .compose(req -> req.send()).compose(resp -> resp.body()).map(body -> body.toJsonObject())));
    }
    List<JsonObject> out = new ArrayList<>();
    for (Future<JsonObject> f : all) {
      out.add(f.await(10, TimeUnit.SECONDS));
    }
    return out;
  }

  private static void sleepUntil(long nanos) throws InterruptedException {
    long left;
    while ((left = nanos - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.sleep(Math.min(left, 100_000_000L));
    }
  }

  private static double spread(double[] v) {
    return Arrays.stream(v).max().orElse(0) / Arrays.stream(v).min().orElse(1);
  }

  private static double percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }
}
