package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.Await;
import dev.fairway.testing.FaultBackend;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.TestVertx;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Capacity slots end to end: a real slow backend, a real Fairway, concurrent real clients.
 */
class SlotWaitIT {
  private Vertx vertx;
  private HttpClientAgent client;

  @BeforeEach
  void setUp() {
    vertx = TestVertx.create();
    client = vertx.createHttpClient(new PoolOptions().setHttp1MaxSize(200));
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** A backend that answers after {@code delayMs} with the order in which it received requests. */
  private TestBackend slowBackend(long delayMs, ConcurrentLinkedQueue<String> arrivals) {
    return slowBackend(delayMs, 0, arrivals);
  }

  /**
   * A backend whose n-th request (from 0) takes {@code delayMs + n * stepMs}, so releases are
   * spaced out and the order of grants is observable at the backend.
   */
  private TestBackend slowBackend(long delayMs, long stepMs, ConcurrentLinkedQueue<String> arrivals) {
    AtomicInteger seq = new AtomicInteger();
    return TestBackend.start(vertx, req -> {
      arrivals.add(String.valueOf(req.getHeader("x-client-seq")));
      int n = seq.getAndIncrement();
      vertx.setTimer(delayMs + n * stepMs, t -> req.response().end("served " + n));
    });
  }

  private record Result(int status, String retryAfter, String body, long millis) {
  }

  private Future<Result> get(int port, int clientSeq) {
    long start = System.nanoTime();
    return TestClient.onLoop(vertx, () -> client.request(new RequestOptions().setPort(port).setHost("127.0.0.1")
            .setURI("/work").setMethod(HttpMethod.GET).putHeader("x-client-seq", Integer.toString(clientSeq)))
        .compose(r -> r.send())
        .compose((HttpClientResponse resp) -> resp.body().map(b -> new Result(resp.statusCode(),
            resp.getHeader("Retry-After"), b.toString(), (System.nanoTime() - start) / 1_000_000))));
  }

  private List<Result> fiveStaggered(int port) throws Exception {
    List<Future<Result>> all = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      all.add(get(port, i));
      Thread.sleep(60);
    }
    Future.all(all).await(20, TimeUnit.SECONDS);
    return all.stream().map(Future::result).toList();
  }

  /**
   * Five requests, each sent once the one before is in Fairway: at the backend ({@code arrivals})
   * or queued (the service's {@code waiting} count), so their order of arrival at Fairway is known
   * however slow the machine.
   */
  private List<Result> fiveInOrder(Fairway fw, ConcurrentLinkedQueue<String> arrivals) throws Exception {
    List<Future<Result>> all = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      all.add(get(fw.proxyPort(), i));
      int sent = i + 1;
      Await.until(() -> arrivals.size() + waiting(fw) >= sent);
    }
    Future.all(all).await(20, TimeUnit.SECONDS);
    return all.stream().map(Future::result).toList();
  }

  private int waiting(Fairway fw) throws Exception {
    return new JsonArray(TestClient.get(vertx, client, fw.adminPort(), "/api/services").body())
        .getJsonObject(0).getInteger("waiting");
  }

  @Test
  void requestsBeyondCapacityWaitThenGet503WithRetryAfter() throws Exception {
    ConcurrentLinkedQueue<String> arrivals = new ConcurrentLinkedQueue<>();
    TestBackend slow = slowBackend(1000, arrivals);
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", slow.port(), 2))
        .slots(2, 300).build()).await(10, TimeUnit.SECONDS);

    List<Result> results = fiveStaggered(fw.proxyPort());

    assertThat(results).filteredOn(r -> r.status() == 200).hasSize(2);
    List<Result> rejected = results.stream().filter(r -> r.status() == 503).toList();
    assertThat(rejected).hasSize(3);
    assertThat(rejected).allSatisfy(r -> {
      assertThat(r.retryAfter()).isEqualTo("1");
      assertThat(r.body()).isEqualTo("no free slot within the wait timeout\n");
      assertThat(r.millis()).isBetween(280L, 900L);
    });
    assertThat(slow.peak()).isEqualTo(2);
    TestFairway.assertIdleSoon(fw); // the last response may reach the client just before its slot is released
    String metrics = TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, fw.adminPort(), "127.0.0.1",
        "/metrics").compose(r -> r.send()).compose(HttpClientResponse::body)).await(5, TimeUnit.SECONDS).toString();
    assertThat(metrics).contains("fairway_slot_timeouts_total{service=\"s\"} 3.0")
        .contains("fairway_slot_wait_seconds_count{service=\"s\"} 3")
        .contains("fairway_backend_capacity{backend=\"b1\"} 2.0");
  }

  @Test
  void longerWaitServesAllInOrderOfArrivalNeverAboveCapacity() throws Exception {
    ConcurrentLinkedQueue<String> arrivals = new ConcurrentLinkedQueue<>();
    TestBackend slow = slowBackend(700, 150, arrivals);
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", slow.port(), 2))
        .slots(2, 3000).build()).await(10, TimeUnit.SECONDS);

    List<Result> results = fiveInOrder(fw, arrivals);

    assertThat(results).extracting(Result::status).containsOnly(200);
    assertThat(String.join(" ", arrivals)).isEqualTo("0 1 2 3 4");
    assertThat(slow.peak()).isEqualTo(2);
  }

  @Test
  void maxWaitingReachedFailsFast() throws Exception {
    TestBackend slow = slowBackend(1000, new ConcurrentLinkedQueue<>());
    TestConfig cfg = TestConfig.service("s", backend("b1", slow.port(), 1)).slots(1, 5000);
    cfg.lastService().getJsonObject("slots").put("maxWaiting", 1);
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);

    Future<Result> first = get(fw.proxyPort(), 0);
    Thread.sleep(100);
    Future<Result> second = get(fw.proxyPort(), 1);
    Thread.sleep(100);
    Result third = get(fw.proxyPort(), 2).await(5, TimeUnit.SECONDS);

    assertThat(third.status()).isEqualTo(503);
    assertThat(third.body()).isEqualTo("too many requests waiting for a free slot\n");
    assertThat(third.retryAfter()).isEqualTo("5");
    assertThat(third.millis()).isLessThan(500);
    assertThat(first.await(5, TimeUnit.SECONDS).status()).isEqualTo(200);
    assertThat(second.await(5, TimeUnit.SECONDS).status()).isEqualTo(200);
  }

  /**
   * Issue 21 item 9: a request whose backend refused the connection waits for a slot on another
   * backend within its wait budget, instead of failing while that backend is full.
   */
  @Test
  void aRetryAfterARefusedConnectWaitsForASlotElsewhere() throws Exception {
    ConcurrentLinkedQueue<String> arrivals = new ConcurrentLinkedQueue<>();
    TestBackend live = slowBackend(300, arrivals);
    try (FaultBackend dead = FaultBackend.start(FaultBackend.Fault.REFUSED)) {
      Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("live", live.port(), 1),
          backend("dead", dead.port(), 5)).slots(1, 3000).build()).await(10, TimeUnit.SECONDS);
      Future<Result> first = get(fw.proxyPort(), 0);
      Thread.sleep(100); // live is full: the next two go to dead, are refused, and wait for live
      List<Future<Result>> retried = List.of(get(fw.proxyPort(), 1), get(fw.proxyPort(), 2));

      assertThat(first.await(5, TimeUnit.SECONDS).status()).isEqualTo(200);
      assertThat(retried).extracting(f -> f.await(5, TimeUnit.SECONDS).status()).containsExactly(200, 200);
      assertThat(arrivals).hasSize(3);
      assertThat(live.peak()).isEqualTo(1);
      TestFairway.assertIdleSoon(fw);
    }
  }

  /** The retry's wait ends with the request's wait budget, and the client hears of the refused connect. */
  @Test
  void aRetryThatFindsNoSlotInTimeAnswersTheConnectFailure() throws Exception {
    TestBackend live = slowBackend(1500, new ConcurrentLinkedQueue<>());
    try (FaultBackend dead = FaultBackend.start(FaultBackend.Fault.REFUSED)) {
      Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("live", live.port(), 1),
          backend("dead", dead.port(), 5)).slots(1, 400).build()).await(10, TimeUnit.SECONDS);
      Future<Result> first = get(fw.proxyPort(), 0);
      Thread.sleep(100);
      Result second = get(fw.proxyPort(), 1).await(5, TimeUnit.SECONDS);

      assertThat(second.status()).isEqualTo(503);
      assertThat(second.body()).isEqualTo("could not connect to a backend\n");
      assertThat(second.retryAfter()).isEqualTo("1");
      assertThat(second.millis()).isBetween(350L, 1200L);
      assertThat(first.await(5, TimeUnit.SECONDS).status()).isEqualTo(200);
    }
  }

  /**
   * The backend's own in-flight peak is not asserted here: an aborted exchange releases its slot
   * when Fairway resets the backend connection, and the backend notices the reset a moment later.
   */
  @Test
  void aThousandClientAbortsWhileWaitingOrBeingServedLeaveNoSlotBehind() throws Exception {
    TestBackend slow = slowBackend(200, new ConcurrentLinkedQueue<>());
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", slow.port(), 5))
        .slots(5, 10_000).build()).await(10, TimeUnit.SECONDS);
    int port = fw.proxyPort();
    AtomicInteger aborted = new AtomicInteger();
    List<Future<Void>> batch = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      long abortAfter = 1 + (i % 40);
      batch.add(TestClient.onLoop(vertx, () -> client.request(new RequestOptions().setPort(port).setHost("127.0.0.1")
              .setURI("/x"))
          .compose(req -> {
            req.send();
            vertx.setTimer(abortAfter, t -> req.connection().close());
            return req.response().transform(ar -> {
              aborted.incrementAndGet();
              return Future.<Void>succeededFuture();
            });
          })));
      if (batch.size() == 50) {
        Future.join(batch).await(20, TimeUnit.SECONDS);
        batch.clear();
      }
    }
    Future.join(batch).await(20, TimeUnit.SECONDS);
    assertThat(aborted.get()).isEqualTo(1000);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline && (fw.slotTable().view().endpoints().get("b1").active() > 0
        || fw.slotTable().view().services().get("s").waiting() > 0)) {
      Thread.sleep(20);
    }
    assertThat(fw.slotTable().view().endpoints().get("b1").active()).isZero();
    assertThat(fw.slotTable().view().services().get("s").waiting()).isZero();
    Result after = get(port, 0).await(5, TimeUnit.SECONDS);
    assertThat(after.status()).isEqualTo(200);
  }
}
