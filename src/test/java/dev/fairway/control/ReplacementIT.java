package dev.fairway.control;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.balancer.Subsetter;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Replacement on failure end to end (issue 25): six real backends, subset size 2, this proxy
 * client 1 of 3, {@code panicThresholdPercent} 0 so that only replacements act. A subset member
 * put into lame duck through the admin API is stood in for by exactly the next backend in the
 * subsetter's order, and only the replacement window is health-checked.
 */
class ReplacementIT extends VertxTestBase {
  private static final String TOKEN = "Bearer test-token-0123456789";
  private final Map<String, AtomicInteger> checks = new TreeMap<>();

  private HttpServer start(String id) throws Exception {
    AtomicInteger count = new AtomicInteger();
    checks.put(id, count);
    return vertx.createHttpServer().requestHandler(req -> {
      if (req.path().equals("/health")) {
        count.incrementAndGet();
      }
      req.response().end(id);
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
  }

  private String call(HttpMethod method, int port, String uri, String auth) throws Exception {
    RequestOptions o = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(uri);
    if (auth != null) {
      o.putHeader("Authorization", auth);
    }
    return TestClient.onLoop(vertx, () -> client.request(o).compose(r -> r.send())
            .compose((HttpClientResponse resp) -> resp.body().map(b -> resp.statusCode() == 200 ? b.toString()
                : Integer.toString(resp.statusCode()))))
        .await(10, TimeUnit.SECONDS);
  }

  /** Who served {@code n} requests in a row, counted per backend id. */
  private Map<String, Integer> served(Fairway fw, int n) throws Exception {
    Map<String, Integer> out = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      out.merge(call(HttpMethod.GET, fw.proxyPort(), "/", null), 1, Integer::sum);
    }
    return out;
  }

  /** Per backend id, its {@code state} and, when it stands in, {@code standsInFor}. */
  private Map<String, String> backends(Fairway fw) throws Exception {
    JsonObject service = new JsonArray(call(HttpMethod.GET, fw.adminPort(), "/api/services", null)).getJsonObject(0);
    Map<String, String> out = new TreeMap<>();
    for (Object o : service.getJsonArray("backends")) {
      JsonObject b = (JsonObject) o;
      String standsIn = b.getString("standsInFor");
      out.put(b.getString("id"), b.getString("state") + (standsIn == null ? "" : " for " + standsIn)
          + (b.getBoolean("inSubset") ? " in subset" : ""));
    }
    return out;
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private static void await(String what, Check done) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!done.holds()) {
      assertThat(System.nanoTime()).as("not within 10 s: %s", what).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  @Test
  void aLameDuckMemberIsStoodInForByTheNextBackendInOrderUntilItIsBack() throws Exception {
    List<String> ids = new ArrayList<>();
    TestConfig config = TestConfig.service("s");
    JsonArray list = config.lastService().getJsonArray("backends");
    for (int i = 1; i <= 6; i++) {
      HttpServer server = start("b" + i);
      ids.add("b" + i);
      list.add(backend("b" + i, server.actualPort(), 10));
    }
    // three failed checks in a row to turn unhealthy: one slow check on a loaded CI machine must not flip the spare
    config.healthCheck(100, 1000, 1, 3).lastService().put("subsetSize", 2).put("panicThresholdPercent", 0);
    config.json().put("subsetting", new JsonObject().put("clientId", 1).put("clientCount", 3));
    assertThat(Subsetter.subset(ids, 1, 2)).containsExactly("b1", "b5");
    assertThat(Subsetter.order(ids, 1, 2)).containsExactly("b3", "b6", "b2", "b4");
    Fairway fw = Fairway.start(vertx, config.build()).await(10, TimeUnit.SECONDS);
    await("two checks of each member", () -> checks.get("b1").get() >= 2 && checks.get("b5").get() >= 2);
    assertThat(served(fw, 20)).isEqualTo(Map.of("b1", 10, "b5", 10));

    assertThat(new JsonObject(call(HttpMethod.POST, fw.adminPort(), "/api/backends/b1/lame-duck", TOKEN))
        .getString("state")).isEqualTo("lame-duck");
    // b3 and b6, the window, are unhealthy until their first checks pass, which may answer in either order
    Map<String, String> standing = Map.of("b1", "lame-duck in subset", "b2", "healthy", "b3", "healthy for b1",
        "b4", "healthy", "b5", "healthy in subset", "b6", "healthy");
    await("b3 stands in for b1 and b6 is checked", () -> standing.equals(backends(fw)));
    assertThat(backends(fw)).isEqualTo(standing);
    assertThat(served(fw, 20)).as("the surviving member and exactly the next by order")
        .isEqualTo(Map.of("b3", 10, "b5", 10));
    assertThat(checks.get("b6").get()).as("b6, the spare, is checked").isPositive();
    assertThat(checks.get("b2").get() + checks.get("b4").get()).as("beyond the window nothing is").isZero();

    call(HttpMethod.DELETE, fw.adminPort(), "/api/backends/b1/lame-duck", TOKEN);
    await("b1 back and b3 gone", () -> "healthy in subset".equals(backends(fw).get("b1"))
        && "healthy".equals(backends(fw).get("b3")));
    assertThat(served(fw, 20)).as("back to the subset").isEqualTo(Map.of("b1", 10, "b5", 10));
  }
}
