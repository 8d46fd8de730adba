package dev.fairway.control;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.balancer.OrcaBinaryTest;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Weighted round robin driven by what real backends report in the ORCA header. */
class WeightedScoresIT extends VertxTestBase {



  private TestBackend reporting(String cpu) {
    return reporting("endpoint-load-metrics", "TEXT cpu_utilization=" + cpu + ", rps_fractional=100");
  }

  private TestBackend reporting(String header, String value) {
    return TestBackend.start(vertx, req -> req.response().putHeader(header, value).end("x"), true);
  }

  /** The gRPC form: {@code endpoint-load-metrics-bin}, base64 of an {@code OrcaLoadReport} made by protobuf-java. */
  private TestBackend reportingBinary(double cpu) {
    byte[] report = OrcaBinaryTest.proto(out -> {
      out.writeDouble(1, cpu);
      out.writeDouble(6, 100);
    });
    return reporting("endpoint-load-metrics-bin", Base64.getEncoder().withoutPadding().encodeToString(report));
  }

  private String get(int port, String uri) throws Exception {
    return get(port, uri, "endpoint-load-metrics");
  }

  private String get(int port, String uri, String header) throws Exception {
    return TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, port, "127.0.0.1", uri).compose(r -> r.send())
        .compose((HttpClientResponse resp) -> resp.body().map(b -> resp.statusCode() + " "
            + resp.getHeader(header) + " " + b)))
        .await(5, TimeUnit.SECONDS);
  }

  @Test
  void lessUtilizedBackendGetsAtLeastTwiceTheRequestsAfterTheBlackout() throws Exception {
    lessUtilizedGetsTwice(reporting("0.9"), reporting("0.3"), "endpoint-load-metrics");
  }

  @Test
  void binaryReportsWeighBackendsLikeTheTextForm() throws Exception {
    lessUtilizedGetsTwice(reportingBinary(0.9), reportingBinary(0.3), "endpoint-load-metrics-bin");
  }

  private void lessUtilizedGetsTwice(TestBackend busy, TestBackend idle, String header) throws Exception {
    TestConfig cfg = TestConfig.service("s", backend("busy", busy.port(), 100), backend("idle", idle.port(), 100))
        .strategy("weighted-round-robin").healthCheck(300, 500, 1, 3);
    cfg.lastService().put("balancing", new JsonObject().put("blackoutMs", 300));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);
    int port = fw.proxyPort();

    assertThat(get(port, "/", header)).as("the ORCA header is consumed").isEqualTo("200 null x");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (weight(fw, "idle") <= 2 * weight(fw, "busy")) {
      assertThat(System.nanoTime()).as("weights published after the blackout").isLessThan(deadline);
      Thread.sleep(100);
    }
    int busyBefore = busy.requests();
    int idleBefore = idle.requests();
    for (int i = 0; i < 200; i++) {
      get(port, "/");
    }
    int toBusy = busy.requests() - busyBefore;
    int toIdle = idle.requests() - idleBefore;
    assertThat(toIdle).as("idle %d vs busy %d", toIdle, toBusy).isGreaterThanOrEqualTo(2 * toBusy);
    assertThat(toBusy).as("the busy one still gets its share").isPositive();
  }

  private double weight(Fairway fw, String id) throws Exception {
    JsonArray services = new JsonArray(TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, fw.adminPort(),
        "127.0.0.1", "/api/services").compose(r -> r.send()).compose(HttpClientResponse::body)).await(5, TimeUnit.SECONDS));
    for (Object b : services.getJsonObject(0).getJsonArray("backends")) {
      JsonObject o = (JsonObject) b;
      if (o.getString("id").equals(id)) {
        return o.getDouble("weight");
      }
    }
    throw new AssertionError("no backend " + id);
  }
}
