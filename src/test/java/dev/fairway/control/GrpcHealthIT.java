package dev.fairway.control;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.balancer.OrcaBinaryTest;
import dev.fairway.testing.Await;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TlsBackend;
import dev.fairway.testing.VertxTestBase;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.TlsServerCredentials;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.net.NetServer;
import io.vertx.core.json.JsonObject;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code healthCheck.type: "grpc"} against real grpc-java servers ({@link HealthStatusManager}):
 * SERVING is healthy, NOT_SERVING unhealthy within the thresholds and healthy again on SERVING,
 * an unknown {@code grpcService} and backends that speak no gRPC are unhealthy with a reason; an
 * {@code https://} backend is checked over TLS (ALPN h2); ORCA reports in a check's trailers count.
 */
class GrpcHealthIT extends VertxTestBase {
  /** Long enough that a loaded machine's slow answer is not taken for a failed check. */
  private static final int CHECK_TIMEOUT_MS = 2000;

  private static final Metadata.Key<byte[]> ORCA =
      Metadata.Key.of("endpoint-load-metrics-bin", Metadata.BINARY_BYTE_MARSHALLER);
  private final HealthStatusManager health = new HealthStatusManager();
  private final AtomicInteger checks = new AtomicInteger();
  private final List<Server> servers = new ArrayList<>();

  @AfterEach
  void stopServers() throws Exception {
    for (Server s : servers) {
      s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** A cleartext grpc-java server with the standard health service, counting its calls. */
  private int grpcServer() throws Exception {
    return grpcServer(InsecureServerCredentials.create(), null);
  }

  /**
   * A grpc-java server with the standard health service, counting its calls; with {@code report}
   * not null, every answer's trailers carry it as {@code endpoint-load-metrics-bin}.
   */
  private int grpcServer(ServerCredentials credentials, byte[] report) throws Exception {
    ServerInterceptor counting = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                         ServerCallHandler<Q, R> next) {
        checks.incrementAndGet();
        return next.startCall(report == null ? call : new SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            trailers.put(ORCA, report);
            super.close(status, trailers);
          }
        }, headers);
      }
    };
    Server server = Grpc.newServerBuilderForPort(0, credentials)
        .addService(ServerInterceptors.intercept(health.getHealthService(), counting)).build().start();
    servers.add(server);
    return server.getPort();
  }

  private TestConfig grpcChecked(String id, int port, int healthy, int unhealthy) {
    TestConfig cfg = TestConfig.service("s", backend(id, port, 10)).healthCheck(100, CHECK_TIMEOUT_MS, healthy, unhealthy);
    cfg.lastService().getJsonObject("healthCheck").remove("path");
    return cfg.healthCheck("type", "grpc");
  }

  @Test
  void notServingMakesUnhealthyWithinTheThresholdsAndServingHealthyAgain() throws Exception {
    health.setStatus("", ServingStatus.SERVING);
    int port = grpcServer();
    Fairway fw = Fairway.start(vertx, grpcChecked("g", port, 2, 3).build()).await(10, TimeUnit.SECONDS);
    Await.until(() -> checks.get() >= 3);
    assertThat(state(fw, "g")).isEqualTo("healthy");

    health.setStatus("", ServingStatus.NOT_SERVING);
    int before = checks.get();
    Await.until(() -> state(fw, "g").equals("unhealthy"));
    assertThat(checks.get() - before).as("three failed checks, the threshold").isBetween(3, 5);
    assertThat(backendJson(fw, "g").getString("reason")).contains("gRPC health: NOT_SERVING");

    health.setStatus("", ServingStatus.SERVING);
    before = checks.get();
    Await.until(() -> state(fw, "g").equals("healthy"));
    assertThat(checks.get() - before).as("two passing checks, the threshold").isBetween(2, 4);
  }

  @Test
  void aServiceUnknownToTheServerIsUnhealthy() throws Exception {
    health.setStatus("shop.Cart", ServingStatus.SERVING);
    int port = grpcServer();
    TestConfig cfg = grpcChecked("known", port, 1, 1).healthCheck("grpcService", "shop.Cart");
    cfg.addService("t", "/t", backend("unknown", port, 10)).healthCheck(100, CHECK_TIMEOUT_MS, 1, 1);
    cfg.lastService().getJsonObject("healthCheck").remove("path");
    cfg.healthCheck("type", "grpc").healthCheck("grpcService", "shop.Missing");
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);
    Await.until(() -> state(fw, "unknown").equals("unhealthy"));
    assertThat(backendJson(fw, "unknown").getString("reason"))
        .contains("gRPC health: grpc-status 5 NOT_FOUND: unknown service");
    int seen = checks.get();
    Await.until(() -> checks.get() >= seen + 4);
    assertThat(state(fw, "known")).isEqualTo("healthy");
  }

  @Test
  void anHttp11OnlyBackendIsUnhealthyWithAReason() throws Exception {
    HttpServer http11 = vertx.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(false))
        .requestHandler(req -> req.response().end("ok"));
    http11.listen(0, "127.0.0.1").await(5, TimeUnit.SECONDS);
    Fairway fw = Fairway.start(vertx, grpcChecked("old", http11.actualPort(), 1, 1).build())
        .await(10, TimeUnit.SECONDS);
    Await.until(() -> state(fw, "old").equals("unhealthy"));
    assertThat(backendJson(fw, "old").getString("reason")).isEqualTo("1 failed check: gRPC health: the backend does not "
        + "speak HTTP/2 with prior knowledge (First received frame was not SETTINGS. Hex dump for first 5 bytes: "
        + "485454502f)");
  }

  @Test
  void aBackendThatNeverAnswersTimesOut() throws Exception {
    NetServer silent = vertx.createNetServer().connectHandler(socket -> { });
    silent.listen(0, "127.0.0.1").await(5, TimeUnit.SECONDS);
    Fairway fw = Fairway.start(vertx, grpcChecked("silent", silent.actualPort(), 1, 1).build())
        .await(10, TimeUnit.SECONDS);
    Await.until(() -> state(fw, "silent").equals("unhealthy"));
    assertThat(backendJson(fw, "silent").getString("reason")).isEqualTo("1 failed check: timeout after " + CHECK_TIMEOUT_MS + " ms");
  }

  @Test
  void anH2cBackendThatIsNoGrpcServerIsUnhealthyWithAReason() throws Exception {
    TestBackend plain = TestBackend.start(vertx, req -> req.response().end("ok"), true);
    Fairway fw = Fairway.start(vertx, grpcChecked("plain", plain.port(), 1, 1).build()).await(10, TimeUnit.SECONDS);
    Await.until(() -> state(fw, "plain").equals("unhealthy"));
    assertThat(backendJson(fw, "plain").getString("reason"))
        .contains("gRPC health: content-type null, not application/grpc");
    assertThat(plain.requests()).isPositive();
  }

  @Test
  void anHttpsBackendIsCheckedOverTlsWithAlpnH2() throws Exception {
    health.setStatus("", ServingStatus.SERVING);
    int port = grpcServer(TlsServerCredentials.create(new File(TlsBackend.file("backend.pem")),
        new File(TlsBackend.file("backend.key"))), null);
    TestConfig cfg = TestConfig.service("s", new JsonObject().put("id", "tls").put("url", "https://127.0.0.1:" + port)
        .put("capacity", 4)).healthCheck(100, CHECK_TIMEOUT_MS, 1, 1);
    cfg.lastService().getJsonObject("healthCheck").remove("path");
    cfg.healthCheck("type", "grpc").lastService().put("tls", new JsonObject().put("caPath", TlsBackend.file("ca.pem")));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);
    Await.until(() -> checks.get() >= 2);
    assertThat(state(fw, "tls")).isEqualTo("healthy");
    health.setStatus("", ServingStatus.NOT_SERVING);
    Await.until(() -> state(fw, "tls").equals("unhealthy"));
    assertThat(backendJson(fw, "tls").getString("reason")).isEqualTo("1 failed check: gRPC health: NOT_SERVING");
  }

  @Test
  void loadReportsInTheTrailersOfChecksWeighTheBackends() throws Exception {
    health.setStatus("", ServingStatus.SERVING);
    int busy = grpcServer(InsecureServerCredentials.create(), OrcaBinaryTest.proto(out -> {
      out.writeDouble(1, 0.9);
      out.writeDouble(6, 100);
    }));
    int idle = grpcServer(InsecureServerCredentials.create(), OrcaBinaryTest.proto(out -> {
      out.writeDouble(1, 0.3);
      out.writeDouble(6, 100);
    }));
    TestConfig cfg = TestConfig.service("s", backend("busy", busy, 10), backend("idle", idle, 10))
        .strategy("weighted-round-robin").healthCheck(100, CHECK_TIMEOUT_MS, 1, 3);
    cfg.lastService().getJsonObject("healthCheck").remove("path");
    cfg.healthCheck("type", "grpc").lastService().put("balancing", new JsonObject().put("blackoutMs", 300));
    Fairway fw = Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);
    Await.until(() -> backendJson(fw, "idle").getDouble("weight") > 2.5 * backendJson(fw, "busy").getDouble("weight"));
    assertThat(backendJson(fw, "busy").getDouble("utilization")).isEqualTo(0.9);
  }

  private String state(Fairway fw, String id) throws Exception {
    return backendJson(fw, id).getString("state");
  }

  private JsonObject backendJson(Fairway fw, String id) throws Exception {
    JsonArray services = new JsonArray(TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, fw.adminPort(),
        "127.0.0.1", "/api/services").compose(r -> r.send()).compose(HttpClientResponse::body)).await(5, TimeUnit.SECONDS));
    for (Object s : services) {
      for (Object b : ((JsonObject) s).getJsonArray("backends")) {
        if (((JsonObject) b).getString("id").equals(id)) {
          return (JsonObject) b;
        }
      }
    }
    throw new AssertionError("no backend " + id);
  }
}
