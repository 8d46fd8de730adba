package dev.fairway.testing;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;

/**
 * A backend of the spread benchmark ({@code bench/spread.sh}), run as its own JVM: a simulated
 * server with a fixed number of workers (default one) and an unbounded FIFO queue. A request
 * costs {@code baseMs × x-cost × slowness} of a worker's time; the answer goes out when its
 * (virtual) work ends, so an overloaded backend shows utilization 1 and a growing queue, never
 * more throughput. Nothing spins: the work is a {@link WorkQueue} schedule and a timer, so the
 * numbers do not depend on how busy the machine's cores are.
 *
 * <p>Example: {@code java -cp target/fairway.jar:target/test-classes
 * dev.fairway.testing.SpreadBackend port=19101 id=b3 slowness=2} serves on 127.0.0.1:19101; a
 * {@code GET /} with {@code x-cost: 5} is answered after 20 ms of work (more if queued) with
 * body {@code b3} and {@code endpoint-load-metrics: TEXT cpu_utilization=0.4120,
 * rps_fractional=41.500}: busy time / wall time and completions per second over the last
 * {@code windowMs} (default 2000).
 *
 * <p>Paths: {@code GET /health} answers 200 with the same header; {@code GET /stats} answers
 * JSON with the cumulative busy and assigned work ({@code busyNanos}, {@code assignedNanos}, on
 * this process's {@code nowNanos} clock) for the benchmark driver; {@code POST /reset} drops the
 * queued work (between two strategies' runs); any other path is a request of cost {@code x-cost}
 * (a number from 0.01 to 1000, default 1).
 *
 * <p>Arguments, {@code key=value}: {@code port} (required), {@code id} [b-port], {@code slowness}
 * [1], {@code baseMs} [2], {@code workers} [1], {@code windowMs} [2000], {@code host}
 * [127.0.0.1].
 */
public final class SpreadBackend {
  private SpreadBackend() {
  }

  public static void main(String[] args) {
    Map<String, String> a = args(args);
    int port = Integer.parseInt(required(a, "port"));
    String host = a.getOrDefault("host", "127.0.0.1");
    String id = a.getOrDefault("id", "b-" + port);
    double slowness = Double.parseDouble(a.getOrDefault("slowness", "1"));
    double baseMs = Double.parseDouble(a.getOrDefault("baseMs", "2"));
    int workers = Integer.parseInt(a.getOrDefault("workers", "1"));
    long windowNanos = Long.parseLong(a.getOrDefault("windowMs", "2000")) * 1_000_000L;
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1)
        .setInternalBlockingPoolSize(1));
    WorkQueue queue = new WorkQueue(workers, windowNanos, System.nanoTime());
    long unitNanos = Math.round(baseMs * 1e6 * slowness);
    vertx.createHttpServer().requestHandler(req -> handle(req, vertx, queue, id, unitNanos, slowness, baseMs, workers))
        .listen(port, host)
        .onSuccess(s -> System.out.println("spread backend " + id + " on " + host + ":" + s.actualPort()
            + " slowness " + slowness + " baseMs " + baseMs + " workers " + workers))
        .onFailure(e -> {
          System.err.println("spread backend " + id + ": cannot listen on " + host + ":" + port + ": " + e);
          System.exit(1);
        });
  }

  private static void handle(HttpServerRequest req, Vertx vertx, WorkQueue queue, String id, long unitNanos,
                             double slowness, double baseMs, int workers) {
    long now = System.nanoTime();
    String path = req.path();
    switch (path) {
      case "/health" -> req.response().putHeader(SpreadReport.NAME, header(queue, now)).end("ok\n");
      case "/stats" -> req.response().putHeader("content-type", "application/json").end(new JsonObject()
          .put("id", id).put("slowness", slowness).put("baseMs", baseMs).put("workers", workers)
          .put("nowNanos", now).put("busyNanos", queue.busyNanos(now)).put("assignedNanos", queue.assignedNanos())
          .put("submitted", queue.submitted()).put("pending", queue.pending(now))
          .put("utilization", queue.utilization(now)).put("rate", queue.rate(now)).encode());
      case "/reset" -> {
        if (req.method() != HttpMethod.POST) {
          req.response().setStatusCode(405).end("POST only\n");
        } else {
          queue.reset(now);
          req.response().end("reset\n");
        }
      }
      default -> {
        double cost;
        try {
          String c = req.getHeader("x-cost");
          cost = c == null ? 1 : Double.parseDouble(c);
        } catch (NumberFormatException e) {
          cost = Double.NaN;
        }
        if (!(cost >= 0.01 && cost <= 1000)) {
          req.response().setStatusCode(400).end("x-cost must be a number from 0.01 to 1000\n");
          return;
        }
        long end = queue.submit(now, Math.round(unitNanos * cost));
        // answer at the end of the work; a timer fires on or after its delay, never early
        long delayMs = Math.max(1, (end - now + 999_999) / 1_000_000);
        vertx.setTimer(delayMs, t -> {
          if (!req.response().closed()) {
            req.response().putHeader(SpreadReport.NAME, header(queue, System.nanoTime())).end(id + "\n");
          }
        });
      }
    }
  }

  private static String header(WorkQueue queue, long now) {
    return SpreadReport.header(queue.utilization(now), queue.rate(now));
  }

  static Map<String, String> args(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (String s : args) {
      int eq = s.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("expected key=value, got " + s);
      }
      m.put(s.substring(0, eq), s.substring(eq + 1));
    }
    return m;
  }

  static String required(Map<String, String> a, String key) {
    String v = a.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing " + key + "=...");
    }
    return v;
  }
}
