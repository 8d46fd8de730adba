package dev.fairway.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.balancer.OrcaBinaryTest;
import dev.fairway.testing.Await;
import dev.fairway.testing.GrpcBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.VertxTestBase;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.MetadataUtils;
import io.grpc.testing.protobuf.SimpleRequest;
import io.grpc.testing.protobuf.SimpleServiceGrpc;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a gRPC server says only in its TRAILERS counts like the same fields in a response head:
 * an {@code endpoint-load-metrics-bin} ORCA report weighs the backends, {@code lame-duck: true}
 * makes the backend a lame duck; neither reaches the client. The health checks here carry no
 * signal, so whatever the table learns came through proxied calls.
 */
class GrpcTrailerSignalsIT extends VertxTestBase {
  private static final Metadata.Key<byte[]> ORCA =
      Metadata.Key.of("endpoint-load-metrics-bin", Metadata.BINARY_BYTE_MARSHALLER);
  private static final Metadata.Key<String> LAME_DUCK = Metadata.Key.of("lame-duck", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> DETAIL = GrpcBackend.DETAIL;
  private final HealthStatusManager health = new HealthStatusManager();
  private final List<GrpcBackend> backends = new ArrayList<>();
  private final AtomicReference<Metadata> trailersSeen = new AtomicReference<>();
  private ManagedChannel channel;

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    for (GrpcBackend b : backends) {
      b.close();
    }
  }

  private GrpcBackend backend(Metadata trailers) throws Exception {
    trailers.put(DETAIL, "kept");
    GrpcBackend b = GrpcBackend.withTrailers(health, trailers);
    backends.add(b);
    return b;
  }

  private static Metadata orca(double cpu) {
    Metadata m = new Metadata();
    m.put(ORCA, OrcaBinaryTest.proto(out -> {
      out.writeDouble(1, cpu);
      out.writeDouble(6, 100);
    }));
    return m;
  }

  private static JsonObject h2c(String id, GrpcBackend b) {
    return new JsonObject().put("id", id).put("url", "h2c://127.0.0.1:" + b.port()).put("capacity", 20);
  }

  /** A Fairway with gRPC health checks every {@code intervalMs} (they carry no signal), and a channel to it. */
  private Fairway start(TestConfig cfg, long intervalMs) {
    health.setStatus("", ServingStatus.SERVING);
    cfg.healthCheck(intervalMs, 500, 1, 3).lastService().getJsonObject("healthCheck").remove("path");
    Fairway fw = TestFairway.start(vertx, cfg.healthCheck("type", "grpc").build());
    channel = NettyChannelBuilder.forAddress("127.0.0.1", fw.proxyPort()).usePlaintext().build();
    return fw;
  }

  private void call() {
    SimpleServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newCaptureMetadataInterceptor(new AtomicReference<>(), trailersSeen))
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .unaryRpc(SimpleRequest.newBuilder().setRequestMessage("hi").build());
  }

  @Test
  void aBinaryLoadReportInTheTrailersWeighsTheBackendsAndStaysBehindFairway() throws Exception {
    GrpcBackend busy = backend(orca(0.9));
    GrpcBackend idle = backend(orca(0.3));
    TestConfig cfg = TestConfig.service("s", h2c("busy", busy), h2c("idle", idle)).strategy("weighted-round-robin");
    cfg.lastService().put("balancing", new JsonObject().put("blackoutMs", 300));
    Fairway fw = start(cfg, 100);

    call();
    assertThat(List.of(trailersSeen.get().containsKey(ORCA), trailersSeen.get().get(DETAIL)))
        .as("the report is consumed, the other trailers pass").containsExactly(false, "kept");
    Await.until(() -> {
      call();
      return backend(fw, "idle").getDouble("weight") > 2 * backend(fw, "busy").getDouble("weight");
    });
    assertThat(backend(fw, "busy").getDouble("utilization")).isEqualTo(0.9);
    int busyBefore = busy.calls.get();
    int idleBefore = idle.calls.get();
    for (int i = 0; i < 100; i++) {
      call();
    }
    int toBusy = busy.calls.get() - busyBefore;
    int toIdle = idle.calls.get() - idleBefore;
    assertThat(toIdle).as("idle %d vs busy %d", toIdle, toBusy).isGreaterThanOrEqualTo(2 * toBusy);
  }

  @Test
  void lameDuckTrueInTheTrailersMakesTheBackendALameDuckAndStaysBehindFairway() throws Exception {
    Metadata ducking = new Metadata();
    ducking.put(LAME_DUCK, "true");
    GrpcBackend duck = backend(ducking);
    GrpcBackend steady = backend(new Metadata());
    TestConfig cfg = TestConfig.service("s", h2c("duck", duck), h2c("steady", steady));
    Fairway fw = start(cfg, 3_600_000); // a passing check ends a lame duck: the first is due within the hour

    while (duck.calls.get() == 0) {
      call();
      assertThat(trailersSeen.get().containsKey(LAME_DUCK)).as("lame-duck reaches the client").isFalse();
    }
    Await.until(() -> backend(fw, "duck").getString("state").equals("lame-duck"));
    int before = duck.calls.get();
    for (int i = 0; i < 10; i++) {
      call();
    }
    assertThat(duck.calls.get()).as("calls to the lame duck after it said so").isEqualTo(before);
  }

  private JsonObject backend(Fairway fw, String id) throws Exception {
    JsonArray services = new JsonArray(TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, fw.adminPort(),
        "127.0.0.1", "/api/services").compose(r -> r.send()).compose(HttpClientResponse::body)).await(5, TimeUnit.SECONDS));
    for (Object b : services.getJsonObject(0).getJsonArray("backends")) {
      if (((JsonObject) b).getString("id").equals(id)) {
        return (JsonObject) b;
      }
    }
    throw new AssertionError("no backend " + id);
  }
}
