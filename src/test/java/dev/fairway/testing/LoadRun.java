package dev.fairway.testing;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends {@code total} requests through a Vert.x client with {@code concurrency} in flight and
 * records each outcome: the status (or {@link #ABORTED} when the body failed) and the time to
 * the body's end or failure.
 *
 * <p>Example: {@code LoadRun.run(vertx, client, port, HttpMethod.GET, 1000, 50, null)} returns
 * 1,000 outcomes; with a method of POST each request carries {@code X-Request-Id: r<n>} and a
 * five-byte body.
 */
public final class LoadRun {
  /** Status recorded for a response whose body failed (the client connection was aborted). */
  public static final int ABORTED = -1;

  private LoadRun() {
  }

  /** One request's result. */
  public record Outcome(int status, long millis, String body) {
  }

  /** Runs the load from an event loop and returns every outcome (bounded by {@code awaitSeconds}). */
  public static List<Outcome> run(Vertx vertx, HttpClient client, int port, HttpMethod method, int total,
                                  int concurrency, String idPrefix, int awaitSeconds) throws Exception {
    List<Outcome> out = new CopyOnWriteArrayList<>();
    AtomicInteger next = new AtomicInteger();
    Promise<Void> all = Promise.promise();
    AtomicInteger workers = new AtomicInteger(concurrency);
    vertx.getOrCreateContext().runOnContext(v -> {
      for (int w = 0; w < concurrency; w++) {
        worker(client, port, method, total, next, out, idPrefix).onComplete(ar -> {
          if (workers.decrementAndGet() == 0) {
            all.tryComplete();
          }
        });
      }
    });
    all.future().await(awaitSeconds, TimeUnit.SECONDS);
    return out;
  }

  private static Future<Void> worker(HttpClient client, int port, HttpMethod method, int total, AtomicInteger next,
                                     List<Outcome> out, String idPrefix) {
    int n = next.getAndIncrement();
    if (n >= total) {
      return Future.succeededFuture();
    }
    long start = System.nanoTime();
    RequestOptions options = new RequestOptions().setMethod(method).setPort(port).setHost("127.0.0.1").setURI("/");
    if (idPrefix != null) {
      options.putHeader("X-Request-Id", idPrefix + n);
    }
    int[] status = {0};
    return client.request(options)
        .compose(req -> method == HttpMethod.POST ? req.send("hello") : req.send())
        .compose(resp -> {
          status[0] = resp.statusCode();
          return resp.body();
        })
        .transform(ar -> {
          long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          out.add(new Outcome(ar.succeeded() ? status[0] : ABORTED, ms, ar.succeeded() ? ar.result().toString() : ""));
          return worker(client, port, method, total, next, out, idPrefix);
        });
  }
}
