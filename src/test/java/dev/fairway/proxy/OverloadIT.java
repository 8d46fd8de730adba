package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.Await;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.TestVertx;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 24 end to end: criticality and deadlines read from the request and forwarded, retries of
 * a backend's answers within a budget, and adaptive throttling, with real backends and a real
 * Fairway.
 */
class OverloadIT {
  private Vertx vertx;
  private HttpClientAgent client;

  @BeforeEach
  void setUp() {
    vertx = TestVertx.create();
    client = vertx.createHttpClient(new PoolOptions().setHttp1MaxSize(50));
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private record Result(int status, String body, long millis) {
  }

  private Result send(int port, HttpMethod method, Map<String, String> headers, String body) throws Exception {
    long start = System.nanoTime();
    RequestOptions o = new RequestOptions().setPort(port).setHost("127.0.0.1").setURI("/work").setMethod(method);
    headers.forEach(o::putHeader);
    return TestClient.onLoop(vertx, () -> client.request(o)
            .compose(r -> body == null ? r.send() : r.send(Buffer.buffer(body)))
            .compose((HttpClientResponse resp) -> resp.body().map(b -> new Result(resp.statusCode(), b.toString(),
                (System.nanoTime() - start) / 1_000_000))))
        .await(10, TimeUnit.SECONDS);
  }

  private Result get(int port, Map<String, String> headers) throws Exception {
    return send(port, HttpMethod.GET, headers, null);
  }

  /** A backend that records each request's head and answers {@code status} after {@code delayMs}. */
  private TestBackend recording(int status, long delayMs, ConcurrentLinkedQueue<MultiMap> heads) {
    return TestBackend.start(vertx, req -> req.body().onSuccess(b -> {
      MultiMap h = MultiMap.caseInsensitiveMultiMap().addAll(req.headers()).add("x-seen-body", b.toString())
          .add("x-seen-method", req.method().name());
      heads.add(h);
      vertx.setTimer(Math.max(1, delayMs), t -> req.response().setStatusCode(status).end("from " + status));
    }));
  }

  private String metrics(Fairway fw) throws Exception {
    return TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, fw.adminPort(), "127.0.0.1", "/metrics")
        .compose(r -> r.send()).compose(HttpClientResponse::body)).await(5, TimeUnit.SECONDS).toString();
  }

  private static JsonObject retry(int maxAttempts, String... on) {
    return new JsonObject().put("on", new JsonArray(List.of((Object[]) on))).put("maxAttempts", maxAttempts);
  }

  @Test
  void criticalityAttemptAndWhatIsLeftOfTheDeadlineAreForwarded() throws Exception {
    ConcurrentLinkedQueue<MultiMap> heads = new ConcurrentLinkedQueue<>();
    TestBackend b = recording(200, 1, heads);
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", b.port(), 4)).build())
        .await(10, TimeUnit.SECONDS);

    assertThat(get(fw.proxyPort(), Map.of("X-Request-Timeout-Ms", "5000", "X-Fairway-Attempt", "7")).status())
        .isEqualTo(200);
    assertThat(get(fw.proxyPort(), Map.of("X-Criticality", "SHEDDABLE_PLUS")).status()).isEqualTo(200);

    MultiMap first = heads.poll();
    assertThat(first.getAll("x-fairway-attempt")).containsExactly("1");
    assertThat(first.get("x-criticality")).isEqualTo("critical");
    assertThat(Long.parseLong(first.get("x-request-timeout-ms"))).isBetween(4000L, 5000L);
    MultiMap second = heads.poll();
    assertThat(second.get("x-criticality")).isEqualTo("SHEDDABLE_PLUS");
    assertThat(second.get("x-request-timeout-ms")).isNull();
  }

  @Test
  void aDeadlineThatHasPassedIsNeverForwardedAndAMalformedOneIsRefused() throws Exception {
    ConcurrentLinkedQueue<MultiMap> heads = new ConcurrentLinkedQueue<>();
    TestBackend b = recording(200, 1, heads);
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", b.port(), 4)).build())
        .await(10, TimeUnit.SECONDS);

    Result passed = get(fw.proxyPort(), Map.of("X-Request-Timeout-Ms", "0"));
    Result malformed = get(fw.proxyPort(), Map.of("X-Request-Timeout-Ms", "soon"));

    assertThat(passed.status()).isEqualTo(504);
    assertThat(passed.body()).isEqualTo("deadline exceeded before a backend answered\n");
    assertThat(malformed.status()).isEqualTo(400);
    assertThat(malformed.body()).isEqualTo("malformed deadline field; expected milliseconds\n");
    assertThat(heads).isEmpty();
  }

  @Test
  void theServiceTotalCapsTheDeadlineAndTheBackendIsToldIt() throws Exception {
    ConcurrentLinkedQueue<MultiMap> heads = new ConcurrentLinkedQueue<>();
    TestBackend slow = recording(200, 1500, heads);
    TestConfig cfg = TestConfig.service("s", backend("b1", slow.port(), 4));
    cfg.lastService().put("timeouts", new JsonObject().put("totalMs", 300));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    Result r = get(fw.proxyPort(), Map.of("X-Request-Timeout-Ms", "60000"));

    assertThat(r.status()).isEqualTo(504);
    assertThat(r.millis()).isBetween(250L, 1200L);
    assertThat(Long.parseLong(heads.poll().get("x-request-timeout-ms"))).isBetween(200L, 300L);
  }

  @Test
  void aBackendsOverloadAnswerIsRetriedOnAnotherBackendThatHasRoom() throws Exception {
    ConcurrentLinkedQueue<MultiMap> failing = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<MultiMap> good = new ConcurrentLinkedQueue<>();
    TestBackend b1 = recording(503, 1, failing);
    TestBackend b2 = recording(200, 1, good);
    TestConfig cfg = TestConfig.service("s", backend("b1", b1.port(), 4), backend("b2", b2.port(), 4));
    cfg.lastService().put("retry", retry(2, "503").put("minRetriesPerSecond", 100));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    for (int i = 0; i < 6; i++) {
      assertThat(get(fw.proxyPort(), Map.of()).body()).isEqualTo("from 200");
    }
    Result put = send(fw.proxyPort(), HttpMethod.PUT, Map.of(), "the body");

    assertThat(put.body()).isEqualTo("from 200");
    assertThat(failing).isNotEmpty();
    assertThat(failing).allSatisfy(h -> assertThat(h.get("x-fairway-attempt")).isEqualTo("1"));
    assertThat(good.stream().filter(h -> "2".equals(h.get("x-fairway-attempt"))).count()).isEqualTo(failing.size());
    assertThat(good).filteredOn(h -> h.get("x-seen-method").equals("PUT"))
        .allSatisfy(h -> assertThat(h.get("x-seen-body")).isEqualTo("the body"));
    assertThat(metrics(fw)).contains("fairway_retries_total{service=\"s\"} " + failing.size() + ".0");
  }

  @Test
  void aPostIsNotRetriedByDefaultAndAnEmptyBudgetPassesTheAnswerOn() throws Exception {
    ConcurrentLinkedQueue<MultiMap> failing = new ConcurrentLinkedQueue<>();
    TestBackend b1 = recording(503, 1, failing);
    TestBackend b2 = recording(200, 1, new ConcurrentLinkedQueue<>());
    TestConfig cfg = TestConfig.service("s", backend("b1", b1.port(), 4), backend("b2", b2.port(), 4));
    cfg.lastService().put("retry", retry(3, "503").put("budgetPercent", 0).put("minRetriesPerSecond", 0));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    int passedOn = 0;
    StringBuilder seen = new StringBuilder();
    for (int i = 0; i < 6; i++) {
      Result g = get(fw.proxyPort(), Map.of());
      Result p = send(fw.proxyPort(), HttpMethod.POST, Map.of(), "x");
      seen.append(g.status()).append(' ').append(g.body()).append(p.status()).append(' ').append(p.body());
      passedOn += (g.status() == 503 ? 1 : 0) + (p.status() == 503 ? 1 : 0);
    }
    seen.append(failing.stream().map(h -> h.get("x-seen-method") + h.get("x-fairway-attempt")).toList());

    assertThat(passedOn).as(seen.toString()).isEqualTo(failing.size()).isGreaterThan(0);
    assertThat(metrics(fw)).contains("fairway_retry_budget_exhausted_total{service=\"s\"}")
        .doesNotContain("fairway_retry_budget_exhausted_total{service=\"s\"} 0.0");
  }

  @Test
  void anOverloadAnswerWhileEveryOtherBackendIsFullIsPassedBack() throws Exception {
    TestBackend b1 = recording(503, 1, new ConcurrentLinkedQueue<>());
    TestBackend b2 = recording(200, 1500, new ConcurrentLinkedQueue<>());
    TestConfig cfg = TestConfig.service("s", backend("b1", b1.port(), 4), backend("b2", b2.port(), 1));
    cfg.lastService().put("retry", retry(2, "503").put("minRetriesPerSecond", 100));
    cfg.lastService().put("strategy", "least-loaded");
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);
    Future<Result> busy = TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, fw.proxyPort(), "127.0.0.1", "/a")
        .compose(r -> r.send()).map(resp -> new Result(resp.statusCode(), "", 0)));
    Thread.sleep(300); // b2's only slot is taken (or the first request went to b1 and was retried onto b2)

    Result r = get(fw.proxyPort(), Map.of());

    assertThat(r.status()).isEqualTo(503);
    assertThat(r.body()).isEqualTo("from 503");
    assertThat(r.millis()).isLessThan(1000);
    assertThat(busy.await(5, TimeUnit.SECONDS).status()).isEqualTo(200);
  }

  @Test
  void aTryWithoutAnAnswerInPerTryTimeoutGoesToAnotherBackend() throws Exception {
    ConcurrentLinkedQueue<MultiMap> good = new ConcurrentLinkedQueue<>();
    TestBackend hung = recording(200, 5000, new ConcurrentLinkedQueue<>());
    TestBackend fast = recording(200, 1, good);
    TestConfig cfg = TestConfig.service("s", backend("hung", hung.port(), 4), backend("fast", fast.port(), 4));
    cfg.lastService().put("retry", retry(2, "504").put("perTryTimeoutMs", 200).put("minRetriesPerSecond", 100));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    for (int i = 0; i < 4; i++) {
      Result r = get(fw.proxyPort(), Map.of());
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.millis()).isLessThan(1500);
    }
    assertThat(good).anySatisfy(h -> assertThat(h.get("x-fairway-attempt")).isEqualTo("2"));
  }

  @Test
  void adaptiveThrottlingRefusesMostRequestsLocallyWhileTheBackendRefusesAll() throws Exception {
    ConcurrentLinkedQueue<MultiMap> seen = new ConcurrentLinkedQueue<>();
    TestBackend refusing = recording(503, 1, seen);
    TestConfig cfg = TestConfig.service("s", backend("b1", refusing.port(), 4));
    cfg.lastService().put("throttle", new JsonObject().put("k", 2).put("windowMs", 60_000));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    int throttled = 0;
    for (int i = 0; i < 200; i++) {
      Result r = get(fw.proxyPort(), Map.of("X-Criticality", "sheddable"));
      throttled += r.body().startsWith("throttled") ? 1 : 0;
    }

    assertThat(throttled).isGreaterThan(120);
    assertThat(seen.size()).isEqualTo(200 - throttled);
    assertThat(metrics(fw)).contains("fairway_throttled_total{service=\"s\"} " + throttled + ".0")
        .containsPattern("fairway_throttle_reject_probability\\{service=\"s\"} 0\\.9");
  }

  @Test
  void aFullQueueShedsTheNewestLessCriticalWaiterAndServesTheCriticalOneFirst() throws Exception {
    ConcurrentLinkedQueue<MultiMap> heads = new ConcurrentLinkedQueue<>();
    TestBackend slow = recording(200, 400, heads);
    TestConfig cfg = TestConfig.service("s", backend("b1", slow.port(), 1)).slots(1, 5000);
    cfg.lastService().getJsonObject("slots").put("maxWaiting", 2);
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    Future<Result> busy = later(fw.proxyPort(), "critical", "busy");
    Await.until(() -> heads.size() == 1);
    Future<Result> older = later(fw.proxyPort(), "sheddable", "older");
    Await.until(() -> fw.slotTable().serviceCounts("s").waiting() == 1);
    Future<Result> newer = later(fw.proxyPort(), "sheddable", "newer");
    Await.until(() -> fw.slotTable().serviceCounts("s").waiting() == 2);
    Future<Result> critical = later(fw.proxyPort(), "critical-plus", "critical");

    Result shed = newer.await(5, TimeUnit.SECONDS);
    assertThat(shed.status()).isEqualTo(503);
    assertThat(shed.body()).isEqualTo("shed: the queue is full and a more critical request needed the place\n");
    assertThat(shed.millis()).as("shed at once, long before its 5 s wait").isLessThan(3000);
    assertThat(List.of(busy, critical, older)).extracting(f -> f.await(5, TimeUnit.SECONDS).status())
        .containsExactly(200, 200, 200);
    assertThat(heads).extracting(h -> h.get("x-client-name")).containsExactly("busy", "critical", "older");
    Result refused = get(fw.proxyPort(), Map.of("X-Criticality", "sheddable"));
    assertThat(refused.status()).as("the queue is empty again: no one to shed, it is served").isEqualTo(200);
    assertThat(metrics(fw)).contains("fairway_requests_shed_total{service=\"s\"} 1.0");
  }

  private Future<Result> later(int port, String criticality, String name) {
    long start = System.nanoTime();
    return TestClient.onLoop(vertx, () -> client.request(new RequestOptions().setPort(port).setHost("127.0.0.1")
            .setURI("/work").putHeader("X-Criticality", criticality).putHeader("x-client-name", name))
        .compose(r -> r.send())
        .compose((HttpClientResponse resp) -> resp.body().map(b -> new Result(resp.statusCode(), b.toString(),
            (System.nanoTime() - start) / 1_000_000))));
  }

  @Test
  void eachClassWaitsItsOwnTimeForASlot() throws Exception {
    ConcurrentLinkedQueue<MultiMap> heads = new ConcurrentLinkedQueue<>();
    TestBackend slow = recording(200, 1500, heads);
    TestConfig cfg = TestConfig.service("s", backend("b1", slow.port(), 1));
    cfg.lastService().put("slots", new JsonObject().put("capacity", 1)
        .put("waitTimeoutMs", new JsonObject().put("default", 700).put("sheddable", 100)));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);
    Future<Result> busy = later(fw.proxyPort(), "critical", "busy");
    Await.until(() -> heads.size() == 1); // the backend's only slot is taken

    Future<Result> critical = later(fw.proxyPort(), "critical", "critical");
    Result sheddable = get(fw.proxyPort(), Map.of("X-Criticality", "sheddable"));

    assertThat(sheddable.status()).isEqualTo(503);
    assertThat(sheddable.millis()).as(sheddable.toString()).isBetween(80L, 600L);
    Result waited = critical.await(5, TimeUnit.SECONDS);
    assertThat(waited.status()).as(waited + " " + sheddable).isEqualTo(503);
    assertThat(waited.millis()).isBetween(650L, 1400L);
    assertThat(busy.await(5, TimeUnit.SECONDS).status()).isEqualTo(200);
  }

  /**
   * A request whose deadline passes while an HTTP/1.1 backend works on it gets its 504 at the
   * deadline, but its slot stays taken until the backend answers: closing the connection would not
   * stop the backend's work, and the next request would find it over capacity.
   */
  @Test
  void theSlotOfARequestAnsweredAtItsDeadlineStaysTakenUntilTheBackendIsDone() throws Exception {
    TestBackend slow = recording(200, 800, new ConcurrentLinkedQueue<>());
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", slow.port(), 1)).slots(1, 5000).build())
        .await(10, TimeUnit.SECONDS);

    Result late = get(fw.proxyPort(), Map.of("X-Request-Timeout-Ms", "200"));
    Result next = get(fw.proxyPort(), Map.of());

    assertThat(late.status()).isEqualTo(504);
    assertThat(late.millis()).isBetween(150L, 700L);
    assertThat(next.status()).isEqualTo(200);
    assertThat(next.millis()).as("waited for the backend to finish the first").isGreaterThan(900);
    assertThat(slow.peak()).isEqualTo(1);
    TestFairway.assertIdleSoon(fw);
  }

  /**
   * A backend's 503 with Retry-After says "overloaded", not "broken": looked at for a retry (and
   * retried once onto the other backend, overloaded too), it holds neither backend back, as it
   * would not without the retry. The retry read the raw head's fields before they were parsed.
   */
  @Test
  void anOverloadAnswerLookedAtForARetryHoldsNoBackendBack() throws Exception {
    TestBackend overloaded = TestBackend.start(vertx, req -> req.response().setStatusCode(503)
        .putHeader("Retry-After", "1").end("busy"));
    TestBackend alsoOverloaded = TestBackend.start(vertx, req -> req.response().setStatusCode(503)
        .putHeader("Retry-After", "1").end("busy"));
    TestConfig cfg = TestConfig.service("s", backend("b1", overloaded.port(), 4),
        backend("b2", alsoOverloaded.port(), 4));
    cfg.lastService().put("retry", retry(2, "503"));
    cfg.lastService().put("throttle", new JsonObject().put("enabled", false));
    cfg.lastService().put("outlierDetection", new JsonObject().put("consecutive5xx", 2).put("maxEjectionPercent", 100));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    for (int i = 0; i < 5; i++) {
      assertThat(get(fw.proxyPort(), Map.of()).body()).isEqualTo("busy");
    }

    assertThat(metrics(fw)).contains("fairway_backend_held{backend=\"b1\"} 0.0")
        .contains("fairway_backend_held{backend=\"b2\"} 0.0").contains("fairway_retries_total{service=\"s\"}");
  }
}
