package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.FaultBackend;
import dev.fairway.testing.FaultBackend.Fault;
import dev.fairway.testing.LoadRun;
import dev.fairway.testing.LoadRun.Outcome;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Nothing executed twice: 1,000 POSTs, each with its own {@code X-Request-Id}, spread by round
 * robin over a healthy backend and one backend of each fault; the ledgers of all backends
 * together never show an id twice, and every POST got exactly one answer.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NoDuplicatePostIT {
  private static final Fault[] FAULTS = {Fault.REFUSED, Fault.BLACKHOLE, Fault.RESET_BEFORE_HEADERS,
      Fault.DEATH_MID_BODY, Fault.SLOW_HEADERS, Fault.HALF_CLOSE, Fault.GARBAGE, Fault.HEADERS_TOO_LARGE,
      Fault.TE_AND_CL};

  @Test
  void noPostIsEverExecutedTwice(Vertx vertx) throws Exception {
    ConcurrentHashMap<String, AtomicInteger> healthyLedger = new ConcurrentHashMap<>();
    TestBackend healthy = TestBackend.start(vertx, req -> {
      String id = req.getHeader("X-Request-Id");
      req.body().onSuccess(body -> {
        healthyLedger.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        req.response().end("done " + id);
      });
    });
    List<FaultBackend> faulty = new ArrayList<>();
    List<JsonObject> backends = new ArrayList<>();
    backends.add(backend("healthy", healthy.port(), 50));
    try {
      for (Fault f : FAULTS) {
        FaultBackend fb = FaultBackend.start(f);
        faulty.add(fb);
        backends.add(backend(f.name(), fb.port(), 50));
      }
      Fairway fairway = TestFairway.start(vertx, TestConfig.service("pay", backends.toArray(JsonObject[]::new))
          .timeouts(200, 200).healthCheck(3_600_000, 1000, 1, 1000).build());
      HttpClient client = vertx.createHttpClient(new HttpClientOptions(), new PoolOptions().setHttp1MaxSize(50));

      List<Outcome> outcomes = LoadRun.run(vertx, client, fairway.proxyPort(), HttpMethod.POST, 1000, 50, "r", 50);

      assertThat(outcomes).as("every POST got exactly one answer").hasSize(1000);
      Map<String, Integer> executions = new HashMap<>();
      healthyLedger.forEach((id, n) -> executions.merge(id, n.get(), Integer::sum));
      for (FaultBackend fb : faulty) {
        fb.ledger().forEach((id, n) -> executions.merge(id, n.get(), Integer::sum));
      }
      assertThat(executions.values()).as("times each POST reached a backend").allSatisfy(n -> assertThat(n).isEqualTo(1));
      assertThat(healthyLedger).as("the healthy backend did serve").isNotEmpty();
      TestFairway.assertIdleSoon(fairway);
    } finally {
      for (FaultBackend fb : faulty) {
        fb.close();
      }
    }
  }
}
