package dev.fairway.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The load of {@code bench/overload.sh}: GET requests marked with {@code X-Criticality}, either
 * closed loop ({@code --closed critical=5,sheddable=60}: that many clients per class, each sending
 * its next request when the last is answered) or open loop ({@code --rate 80 --mix
 * critical=30,sheddable=70}: 80 requests a second whatever the answers, classes drawn with those
 * weights from a seeded random source), for {@code --seconds}; answers still outstanding then are
 * awaited up to {@code --timeout-ms}. With {@code --deadline-ms D} each request carries {@code
 * X-Request-Timeout-Ms: D} and {@code X-Client-Deadline-Epoch-Ms} (send time + D), which {@link
 * OverloadBackend} checks. Three uncounted {@code GET /health} go first, to load the client's classes.
 *
 * <p>Example: {@code OverloadLoad --target http://127.0.0.1:31480/ --seconds 10 --closed
 * critical=5,sheddable=60} prints one {@link ClassTally#line()} per class, e.g. {@code class
 * critical sent 470 ok 470 s503 0 s504 0 other 0 p50 101.2 p99 140.0}.
 */
public final class OverloadLoad {
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2)).build();
  private final URI target;
  private final int deadlineMs;
  private final Duration timeout;

  private OverloadLoad(Flags f) {
    target = URI.create(f.string("target", "http://127.0.0.1:8080/"));
    deadlineMs = f.integer("deadline-ms", 0);
    timeout = Duration.ofMillis(f.integer("timeout-ms", 5000));
  }

  public static void main(String[] args) throws Exception {
    Flags f = Flags.parse(args);
    OverloadLoad load = new OverloadLoad(f);
    load.warmUp();
    long endNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(f.integer("seconds", 10));
    Map<String, ClassTally> tallies = new LinkedHashMap<>();
    if (f.integer("rate", 0) > 0) {
      Map<String, Integer> mix = Flags.mix(f.string("mix", "critical=30,sheddable=70"));
      mix.keySet().forEach(c -> tallies.put(c, new ClassTally(c)));
      load.openLoop(f.integer("rate", 0), mix, tallies, new Random(f.integer("seed", 1)), endNanos);
    } else {
      Map<String, Integer> clients = Flags.mix(f.string("closed", "critical=5,sheddable=60"));
      clients.keySet().forEach(c -> tallies.put(c, new ClassTally(c)));
      load.closedLoop(clients, tallies, endNanos);
    }
    tallies.values().forEach(t -> System.out.println(t.line()));
    System.exit(0);
  }

  private void closedLoop(Map<String, Integer> clients, Map<String, ClassTally> tallies, long endNanos)
      throws InterruptedException {
    int total = clients.values().stream().mapToInt(Integer::intValue).sum();
    CountDownLatch done = new CountDownLatch(total);
    clients.forEach((c, n) -> {
      for (int i = 0; i < n; i++) {
        loop(tallies.get(c), endNanos, done);
      }
    });
    awaitAfter(done, endNanos);
  }

  private void loop(ClassTally tally, long endNanos, CountDownLatch done) {
    if (System.nanoTime() - endNanos >= 0) {
      done.countDown();
      return;
    }
    send(tally, () -> loop(tally, endNanos, done));
  }

  private void openLoop(int rate, Map<String, Integer> mix, Map<String, ClassTally> tallies, Random random,
                        long endNanos) throws InterruptedException {
    List<String> classes = new ArrayList<>(mix.keySet());
    int weights = mix.values().stream().mapToInt(Integer::intValue).sum();
    long period = TimeUnit.SECONDS.toNanos(1) / rate;
    long start = System.nanoTime();
    List<CountDownLatch> answers = new ArrayList<>();
    for (long i = 0; ; i++) {
      long at = start + i * period;
      if (at - endNanos >= 0) {
        break;
      }
      long wait = at - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      CountDownLatch answered = new CountDownLatch(1);
      answers.add(answered);
      send(tallies.get(pick(classes, mix, weights, random)), answered::countDown);
    }
    for (CountDownLatch a : answers) {
      awaitAfter(a, endNanos);
    }
  }

  private static String pick(List<String> classes, Map<String, Integer> mix, int weights, Random random) {
    int r = random.nextInt(weights);
    for (String c : classes) {
      r -= mix.get(c);
      if (r < 0) {
        return c;
      }
    }
    return classes.get(classes.size() - 1);
  }

  private void awaitAfter(CountDownLatch latch, long endNanos) throws InterruptedException {
    long left = endNanos + timeout.toNanos() + TimeUnit.SECONDS.toNanos(1) - System.nanoTime();
    latch.await(Math.max(0, left), TimeUnit.NANOSECONDS);
  }

  /** Loads the HTTP client's classes with a few uncounted {@code /health} requests, so that the first counted ones are not sent late. */
  private void warmUp() {
    HttpRequest health = HttpRequest.newBuilder(target.resolve("/health")).timeout(timeout).build();
    for (int i = 0; i < 3; i++) {
      client.sendAsync(health, HttpResponse.BodyHandlers.discarding()).exceptionally(e -> null).join();
    }
  }

  private void send(ClassTally tally, Runnable then) {
    HttpRequest.Builder b = HttpRequest.newBuilder(target).timeout(timeout).header("X-Criticality", tally.name());
    if (deadlineMs > 0) {
      b.header("X-Request-Timeout-Ms", Integer.toString(deadlineMs))
          .header("X-Client-Deadline-Epoch-Ms", Long.toString(System.currentTimeMillis() + deadlineMs));
    }
    long sentAt = System.nanoTime();
    tally.sent();
    client.sendAsync(b.build(), HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
      tally.answered(e == null ? r.statusCode() : -1, TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - sentAt));
      then.run();
    });
  }
}
