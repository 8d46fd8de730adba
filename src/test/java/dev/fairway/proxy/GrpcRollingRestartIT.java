package dev.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.Await;
import dev.fairway.testing.GrpcBackend;
import dev.fairway.testing.RollingRestartDrill;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.VertxTestBase;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.testing.protobuf.SimpleRequest;
import io.grpc.testing.protobuf.SimpleServiceGrpc;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 23's "GOAWAY during a rolling restart with 0 failed RPCs": three grpc-java backends behind
 * Fairway ({@code h2c://}, gRPC health checks every 100 ms), eight clients keep unary calls of
 * 20 ms going, and each backend in turn is restarted the way a gRPC server handles
 * {@code SIGTERM}: health {@code NOT_SERVING} and {@code server.shutdown()} at once (a GOAWAY on
 * Fairway's connections, the calls under way finish, the port closes), then a new server on the
 * same port that reports {@code SERVING}. No call may fail in the six seconds or more of load, and
 * each new server must get calls.
 */
class GrpcRollingRestartIT extends VertxTestBase {
  private static final int CLIENTS = 8;
  private final GrpcBackend[] backends = new GrpcBackend[3];
  private final HealthStatusManager[] health = new HealthStatusManager[3];
  private ManagedChannel channel;
  private ExecutorService load;

  @AfterEach
  void stop() throws Exception {
    if (load != null) {
      load.shutdownNow();
    }
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    for (GrpcBackend b : backends) {
      if (b != null) {
        b.close();
      }
    }
  }

  private void startBackend(int i, int port) throws Exception {
    health[i] = new HealthStatusManager();
    health[i].setStatus("", ServingStatus.SERVING);
    backends[i] = GrpcBackend.start(port, health[i]);
  }

  @Test
  @Timeout(60)
  void restartingEveryBackendUnderLoadFailsNoCall() throws Exception {
    List<Integer> ports = RollingRestartDrill.freePorts(3);
    List<JsonObject> list = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      startBackend(i, ports.get(i));
      list.add(new JsonObject().put("id", "g" + i).put("url", "h2c://127.0.0.1:" + ports.get(i)).put("capacity", 20));
    }
    // a 2 s check timeout: a cold first gRPC check can take over 500 ms, and one failure makes a backend unhealthy
    TestConfig cfg = TestConfig.service("grpc", list.toArray(JsonObject[]::new)).healthCheck(100, 2000, 1, 1);
    cfg.lastService().getJsonObject("healthCheck").remove("path");
    Fairway fw = TestFairway.start(vertx, cfg.healthCheck("type", "grpc").build());
    channel = NettyChannelBuilder.forAddress("127.0.0.1", fw.proxyPort()).usePlaintext().disableRetry().build();

    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger ok = new AtomicInteger();
    Map<String, Integer> failures = new ConcurrentHashMap<>();
    load = Executors.newFixedThreadPool(CLIENTS);
    long began = System.nanoTime();
    for (int c = 0; c < CLIENTS; c++) {
      load.execute(() -> {
        SimpleRequest req = SimpleRequest.newBuilder().setRequestMessage("slow 20").build();
        while (running.get()) {
          try {
            SimpleServiceGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS).unaryRpc(req);
            ok.incrementAndGet();
          } catch (StatusRuntimeException e) {
            failures.merge(e.getStatus().getCode() + " " + e.getStatus().getDescription(), 1, Integer::sum);
          }
        }
      });
    }

    Thread.sleep(500);
    for (int i = 0; i < 3; i++) {
      health[i].setStatus("", ServingStatus.NOT_SERVING);
      backends[i].shutdownGracefully();
      Thread.sleep(300); // the port stays closed for a while: connects are refused
      startBackend(i, ports.get(i));
      GrpcBackend restarted = backends[i];
      Await.until(() -> restarted.calls.get() >= 20);
    }
    Thread.sleep(Math.max(300, 6000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began))); // 6 s of load at least
    running.set(false);
    load.shutdown();
    assertThat(load.awaitTermination(10, TimeUnit.SECONDS)).as("clients stopped").isTrue();

    assertThat(failures).as("failed calls by status").isEmpty();
    assertThat(ok.get()).as("calls made").isGreaterThan(200);
    for (GrpcBackend b : backends) {
      assertThat(b.calls.get()).as("calls to a restarted backend").isGreaterThanOrEqualTo(20);
    }
    TestFairway.assertIdleSoon(fw);
  }
}
