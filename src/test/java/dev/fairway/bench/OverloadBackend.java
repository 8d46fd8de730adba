package dev.fairway.bench;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * The backends of {@code bench/overload.sh}: HTTP/1.1 servers in one JVM, each doing {@code
 * work-ms} of "work" (a timer, not CPU) per request with its own capacity: beyond {@code capacity}
 * requests at once it answers 503 at once, as a real backend that protects itself would. Ports in
 * {@code fail-ports} answer 503 to everything from {@code fail-from-s} to {@code fail-until-s}
 * after the first counted request, except {@code fail-accept-percent} of them (spread evenly),
 * or except up to {@code fail-accept-rps} of them in each second (a backend whose capacity
 * dropped), which they serve as usual. A busy 503 says {@code Retry-After: 1} (overloaded); a failing one does not.
 *
 * <p>Example: {@code OverloadBackend --ports 31401,31402 --work-ms 100 --capacity 2 --fail-ports
 * 31401 --fail-from-s 3 --fail-until-s 13} prints {@code ready 31401} and {@code ready 31402};
 * {@code GET /health} answers 200 and is not counted; {@code GET /__stats} on a port answers that
 * port's {@link BackendCounters#report(int)}; anything else is a counted request. A request
 * carrying {@code X-Client-Deadline-Epoch-Ms} that arrives after it counts as late; one with
 * {@code X-Fairway-Attempt} above 1 counts as retried. The JVM exits after {@code max-seconds}.
 */
public final class OverloadBackend {
  private final Vertx vertx;
  private final int workMs;
  private final int capacity;
  private final Set<Integer> failPorts;
  private final long failFromMs;
  private final long failUntilMs;
  private final int failAcceptPercent;
  private final int failAcceptRps;
  /** While failing with {@code fail-accept-rps}: the second counted, and how many were accepted in it. */
  private final AtomicLong acceptSecond = new AtomicLong(-1);
  private final AtomicLong acceptedInSecond = new AtomicLong();
  private final AtomicLong startNanos = new AtomicLong();

  private OverloadBackend(Vertx vertx, Flags f) {
    this.vertx = vertx;
    workMs = f.integer("work-ms", 100);
    capacity = f.integer("capacity", 2);
    failPorts = ports(f.string("fail-ports", ""));
    failFromMs = TimeUnit.SECONDS.toMillis(f.integer("fail-from-s", 0));
    failUntilMs = TimeUnit.SECONDS.toMillis(f.integer("fail-until-s", 0));
    failAcceptPercent = f.integer("fail-accept-percent", 0);
    failAcceptRps = f.integer("fail-accept-rps", 0);
  }

  public static void main(String[] args) {
    Flags f = Flags.parse(args);
    Vertx vertx = Vertx.vertx();
    for (int port : start(vertx, f)) {
      System.out.println("ready " + port);
    }
    vertx.setTimer(TimeUnit.SECONDS.toMillis(f.integer("max-seconds", 120)), id -> System.exit(0));
  }

  /** Starts one server per port of {@code --ports} (0: any free port) and returns the ports they listen on. */
  static List<Integer> start(Vertx vertx, Flags f) {
    String host = f.string("host", "127.0.0.1");
    int maxSeconds = f.integer("max-seconds", 120);
    OverloadBackend backend = new OverloadBackend(vertx, f);
    List<Integer> listening = new ArrayList<>();
    for (int port : ports(f.string("ports", ""))) {
      BackendCounters counters = new BackendCounters(maxSeconds);
      AtomicLong failArrivals = new AtomicLong();
      int[] actual = new int[1];
      HttpServer server = vertx.createHttpServer()
          .requestHandler(req -> backend.handle(req, actual[0], counters, failArrivals));
      actual[0] = server.listen(port, host).await().actualPort();
      listening.add(actual[0]);
    }
    return listening;
  }

  private void handle(HttpServerRequest req, int port, BackendCounters counters, AtomicLong failArrivals) {
    if ("/health".equals(req.path())) {
      req.response().end("ok\n");
      return;
    }
    if ("/__stats".equals(req.path())) {
      req.response().end(counters.report(port));
      return;
    }
    long now = System.nanoTime();
    startNanos.compareAndSet(0, now);
    long sinceMs = TimeUnit.NANOSECONDS.toMillis(now - startNanos.get());
    int second = (int) (sinceMs / 1000);
    counters.attempt(second);
    String deadline = req.getHeader("X-Client-Deadline-Epoch-Ms");
    if (deadline != null && System.currentTimeMillis() > Long.parseLong(deadline)) {
      counters.late.incrementAndGet();
    }
    String attempt = req.getHeader("X-Fairway-Attempt");
    if (attempt != null && Integer.parseInt(attempt.trim()) > 1) {
      counters.retried.incrementAndGet();
    }
    if (failing(port, sinceMs) && !(failAcceptRps > 0 ? acceptThisSecond(second)
        : acceptWhileFailing(failArrivals.getAndIncrement()))) {
      counters.refused.incrementAndGet();
      req.response().setStatusCode(503).end("failing\n");
      return;
    }
    if (!counters.tryEnter(capacity)) {
      counters.busy.incrementAndGet();
      req.response().setStatusCode(503).putHeader("Retry-After", "1").end("busy\n");
      return;
    }
    vertx.setTimer(workMs, id -> {
      counters.active.decrementAndGet();
      counters.accept(second);
      req.response().end("done\n");
    });
  }

  private boolean failing(int port, long sinceMs) {
    return failPorts.contains(port) && sinceMs >= failFromMs && sinceMs < failUntilMs;
  }

  /** Accepts the n-th arrival while failing so that exactly {@code failAcceptPercent} % pass, evenly spread. */
  private boolean acceptWhileFailing(long n) {
    return (n + 1) * failAcceptPercent / 100 > n * failAcceptPercent / 100;
  }

  /** Accepts up to {@code failAcceptRps} arrivals in each second while failing. */
  private synchronized boolean acceptThisSecond(int second) {
    if (acceptSecond.getAndSet(second) != second) {
      acceptedInSecond.set(0);
    }
    return acceptedInSecond.incrementAndGet() <= failAcceptRps;
  }

  private static Set<Integer> ports(String text) {
    return Arrays.stream(text.split(",")).filter(s -> !s.isBlank()).map(s -> Integer.parseInt(s.trim()))
        .collect(Collectors.toCollection(LinkedHashSet::new));
  }
}
