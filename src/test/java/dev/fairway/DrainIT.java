package dev.fairway;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.testing.FairwayProcess;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The proxy's own drain: health 503 first, serving through the grace period, in-flight kept. */
class DrainIT extends VertxTestBase {
  private Future<Integer> status(int port, String uri) {
    return TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, port, "127.0.0.1", uri).compose(r -> r.send())
        .compose((HttpClientResponse resp) -> resp.body().map(b -> resp.statusCode())));
  }

  @Test
  void drainAnswersHealth503KeepsServingThroughGraceAndFinishesInFlight() throws Exception {
    TestBackend slow = TestBackend.start(vertx, req -> vertx.setTimer(
        req.path().equals("/slow") ? 1500 : 1, t -> req.response().end("ok")));
    TestConfig cfg = TestConfig.service("s", backend("b1", slow.port(), 10));
    cfg.json().getJsonObject("proxy").put("drainGraceMs", 500).put("drainTimeoutMs", 5000);
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);
    assertThat(status(fw.adminPort(), "/health").await(5, TimeUnit.SECONDS)).isEqualTo(200);

    Future<Integer> inFlight = status(fw.proxyPort(), "/slow");
    Thread.sleep(200);
    Future<Void> drained = fw.drain();
    assertThat(status(fw.adminPort(), "/health").await(5, TimeUnit.SECONDS)).isEqualTo(503);
    assertThat(status(fw.proxyPort(), "/").await(5, TimeUnit.SECONDS)).as("still serving in grace").isEqualTo(200);

    drained.await(10, TimeUnit.SECONDS);
    assertThat(inFlight.await(5, TimeUnit.SECONDS)).isEqualTo(200);
    assertThat(status(fw.proxyPort(), "/").transform(ar -> Future.succeededFuture(ar.succeeded()))
        .await(5, TimeUnit.SECONDS)).as("no longer accepting").isFalse();
  }

  @Test
  void sigtermDrainsAndExitsZero(@TempDir Path dir) throws Exception {
    TestConfig cfg = TestConfig.service("s", backend("b1", 1, 10));
    cfg.json().getJsonObject("proxy").put("drainGraceMs", 200).put("drainTimeoutMs", 2000);
    Path conf = dir.resolve("config.json");
    Files.writeString(conf, cfg.json().encodePrettily());
    try (FairwayProcess p = FairwayProcess.start(conf)) {
      int adminPort = p.adminPort();
      assertThat(adminPort).as("started: %s", p.lines()).isPositive();
      assertThat(status(adminPort, "/health").await(5, TimeUnit.SECONDS)).isEqualTo(200);
      p.signal("TERM");
      assertThat(p.waitForExit(20)).isTrue();
      assertThat(p.exitValue()).as("log: %s", p.lines()).isZero();
      assertThat(String.join("\n", p.lines())).contains("SIGTERM received").contains("draining").contains("drained");
    }
  }
}
