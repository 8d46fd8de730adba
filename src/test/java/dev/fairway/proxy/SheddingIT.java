package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.balancer.Endpoint;
import dev.fairway.overload.Criticality;
import dev.fairway.slots.Admission;
import dev.fairway.slots.SlotTable;
import dev.fairway.slots.Waiter;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 24: a request waiting in a full queue is shed for a more critical one and its client gets
 * 503 with {@code Retry-After} at once. Proxied requests are all {@code critical} until the
 * criticality header is read, so the more critical newcomer here is a {@code critical-plus}
 * waiter the test puts into the running Fairway's slot table itself.
 */
class SheddingIT extends VertxTestBase {

  /** A critical-plus waiter that completes {@link #grant} when it gets a slot. */
  private static final class Vip extends Waiter {
    final CompletableFuture<String> grant = new CompletableFuture<>();

    Vip() {
      criticality(Criticality.CRITICAL_PLUS);
    }

    @Override
    protected void granted(Endpoint endpoint) {
      grant.complete(endpoint.id());
    }

    @Override
    protected void shed() {
      grant.complete("shed");
    }
  }

  private record Result(int status, String retryAfter, String body, long millis) {
  }

  private Future<Result> get(int port) {
    long start = System.nanoTime();
    return TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, port, "127.0.0.1", "/work")
        .compose(r -> r.send())
        .compose((HttpClientResponse resp) -> resp.body().map(b -> new Result(resp.statusCode(),
            resp.getHeader("Retry-After"), b.toString(), (System.nanoTime() - start) / 1_000_000))));
  }

  @Test
  void aWaitingRequestShedForAMoreCriticalOneGets503WithRetryAfterAtOnce() throws Exception {
    TestBackend slow = TestBackend.start(vertx, req -> vertx.setTimer(1200, t -> req.response().end("served")));
    TestConfig cfg = TestConfig.service("s", backend("b1", slow.port(), 1)).slots(1, 5000);
    cfg.lastService().getJsonObject("slots").put("maxWaiting", 1);
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);
    SlotTable table = fw.slotTable();

    Future<Result> holder = get(fw.proxyPort());
    Thread.sleep(150);
    Future<Result> waiting = get(fw.proxyPort());
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (table.serviceCounts("s").waiting() < 1 && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    Vip vip = new Vip();
    assertThat(table.acquire(table.service("s"), vip, System.nanoTime())).isEqualTo(Admission.QUEUED);

    Result shed = waiting.await(5, TimeUnit.SECONDS);
    assertThat(shed.status() + " " + shed.retryAfter() + " " + shed.body().trim())
        .isEqualTo("503 5 shed: the queue is full and a more critical request needed the place");
    assertThat(shed.millis()).as("refused at once, not after the 5 s wait").isLessThan(1100);
    assertThat(holder.await(5, TimeUnit.SECONDS).status()).isEqualTo(200);
    assertThat(vip.grant.get(5, TimeUnit.SECONDS)).isEqualTo("b1");
    table.release(vip, System.nanoTime(), 1, false);
    TestFairway.assertIdleSoon(fw);
    String metrics = TestClient.get(vertx, client, fw.adminPort(), "/metrics").body();
    assertThat(metrics).contains("fairway_requests_shed_total{service=\"s\"} 1.0")
        .contains("fairway_slot_rejections_queue_full_total{service=\"s\"} 0.0");
  }
}
