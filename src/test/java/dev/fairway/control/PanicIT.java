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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Health checks under subsetting and the panic threshold end to end: nine real backends, subset
 * size 3, this proxy client 1 of 3. Each backend counts the health checks it gets and can be made
 * to fail them.
 */
class PanicIT extends VertxTestBase {
  /** One backend: answers its id, counts {@code /health} hits, fails them while {@code sick}. */
  private static final class Counted {
    final String id;
    final AtomicInteger checks = new AtomicInteger();
    final AtomicBoolean sick = new AtomicBoolean();
    HttpServer server;

    Counted(String id) {
      this.id = id;
    }
  }

  private final Map<String, Counted> backends = new TreeMap<>();

  private Counted start(String id) throws Exception {
    Counted c = new Counted(id);
    c.server = vertx.createHttpServer().requestHandler(req -> {
      if (req.path().equals("/health")) {
        c.checks.incrementAndGet();
        req.response().setStatusCode(c.sick.get() ? 503 : 200).end();
      } else {
        req.response().end(id);
      }
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    backends.put(id, c);
    return c;
  }

  private String get(int port, String uri) throws Exception {
    RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(port).setURI(uri);
    return TestClient.onLoop(vertx, () -> client.request(o).compose(r -> r.send())
            .compose((HttpClientResponse resp) -> resp.body().map(b -> resp.statusCode() == 200 ? b.toString()
                : Integer.toString(resp.statusCode()))))
        .await(10, TimeUnit.SECONDS);
  }

  /** Who served {@code n} requests in a row, counted per backend id. */
  private Map<String, Integer> served(Fairway fw, int n) throws Exception {
    Map<String, Integer> out = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      out.merge(get(fw.proxyPort(), "/"), 1, Integer::sum);
    }
    return out;
  }

  private JsonObject service(Fairway fw) throws Exception {
    return new JsonArray(get(fw.adminPort(), "/api/services")).getJsonObject(0);
  }

  /** Each backend's state in {@code GET /api/services}. */
  private Map<String, String> states(Fairway fw) throws Exception {
    Map<String, String> out = new TreeMap<>();
    for (Object b : service(fw).getJsonArray("backends")) {
      out.put(((JsonObject) b).getString("id"), ((JsonObject) b).getString("state"));
    }
    return out;
  }

  private static void await(String what, BooleanSupplier done) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("not within 10 s: %s", what).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private static BooleanSupplier unchecked(Check c) {
    return () -> {
      try {
        return c.holds();
      } catch (Exception e) {
        return false;
      }
    };
  }

  private Map<String, Integer> checks(List<String> ids) {
    Map<String, Integer> out = new TreeMap<>();
    ids.forEach(id -> out.put(id, backends.get(id).checks.get()));
    return out;
  }

  private double meter(Fairway fw, String name) {
    var registry = fw.metrics().registry();
    return name.endsWith("_panic") ? registry.find(name).tag("service", "s").gauge().value()
        : registry.find(name).tag("service", "s").counter().count();
  }

  @Test
  void outsidersAreNotCheckedWhileTheSubsetIsHealthyAndTakeTheLoadDuringAPanic() throws Exception {
    List<String> ids = new ArrayList<>();
    TestConfig config = TestConfig.service("s");
    JsonArray list = config.lastService().getJsonArray("backends");
    for (int i = 1; i <= 9; i++) {
      Counted c = start("b" + i);
      ids.add(c.id);
      list.add(backend(c.id, c.server.actualPort(), 10));
    }
    config.healthCheck(100, 1000, 1, 1).lastService().put("subsetSize", 3);
    config.json().put("subsetting", new JsonObject().put("clientId", 1).put("clientCount", 3));
    List<String> subset = Subsetter.subset(ids, 1, 3);
    assertThat(subset).containsExactly("b2", "b6", "b7");
    List<String> outside = ids.stream().filter(id -> !subset.contains(id)).toList();
    Fairway fw = Fairway.start(vertx, config.build()).await(10, TimeUnit.SECONDS);

    // a healthy subset: its members are checked every 100 ms, the six others never
    await("three checks of each member", () -> subset.stream().allMatch(id -> backends.get(id).checks.get() >= 3));
    Thread.sleep(300);
    assertThat(checks(outside)).as("no health check outside the subset")
        .isEqualTo(Map.of("b1", 0, "b3", 0, "b4", 0, "b5", 0, "b8", 0, "b9", 0));
    assertThat(served(fw, 30)).isEqualTo(Map.of("b2", 10, "b6", 10, "b7", 10));
    assertThat(service(fw).getBoolean("panic")).isFalse();

    // two of three members fail their checks, and so do b1, b4 and b8, the first three in the
    // replacement order [b1, b4, b8, b3, b9, b5]: nothing can stand in, 1 of 3 is below 50 %, the
    // service panics (with those three healthy, replacements would keep the subset full instead)
    assertThat(Subsetter.order(ids, 1, 3)).startsWith("b1", "b4", "b8");
    for (String id : List.of("b6", "b7", "b1", "b4", "b8")) {
      backends.get(id).sick.set(true);
    }
    await("panic with the six others checked", unchecked(() -> {
      Map<String, String> st = states(fw);
      return service(fw).getBoolean("panic")
          && List.of("b3", "b5", "b9").stream().allMatch(id -> "healthy".equals(st.get(id)));
    }));
    Map<String, Integer> spread = served(fw, 40);
    assertThat(spread.keySet()).as("every healthy backend, in the subset or not")
        .containsExactly("b2", "b3", "b5", "b9");
    assertThat(spread.values()).allSatisfy(n -> assertThat(n).isBetween(5, 15));
    assertThat(meter(fw, "fairway_service_panic")).isEqualTo(1.0);
    assertThat(meter(fw, "fairway_service_panics")).isEqualTo(1.0);
    assertThat(checks(outside).values()).allSatisfy(n -> assertThat(n).isPositive());

    // the members pass again: the panic ends and the others' checks stop
    backends.get("b6").sick.set(false);
    backends.get("b7").sick.set(false);
    await("panic over", unchecked(() -> !service(fw).getBoolean("panic")));
    await("b6 and b7 healthy", unchecked(() -> {
      Map<String, String> st = states(fw);
      return "healthy".equals(st.get("b6")) && "healthy".equals(st.get("b7"));
    }));
    assertThat(meter(fw, "fairway_service_panic")).isEqualTo(0.0);
    assertThat(served(fw, 30)).isEqualTo(Map.of("b2", 10, "b6", 10, "b7", 10));
    Thread.sleep(300); // a check under way when the panic ended may still land
    Map<String, Integer> before = checks(outside);
    Thread.sleep(600);
    assertThat(checks(outside)).as("six intervals later, no new check outside the subset").isEqualTo(before);
    assertThat(meter(fw, "fairway_service_panics")).isEqualTo(1.0);
  }
}
