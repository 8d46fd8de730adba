package dev.fairway.control;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Passive ejection end to end, each service with its own {@code outlierDetection}: a backend's own
 * 503 with {@code Retry-After} (overloaded) never ejects it, a 503 without does; two services eject
 * by their own thresholds. Health checks are 10 s apart and fail on the failing backends, so that
 * none ends an ejection early.
 */
class OutlierIT extends VertxTestBase {
  /** Answers {@code status} to everything, health checks included; {@code retryAfter} adds the header. */
  private TestBackend failing(int status, boolean retryAfter) {
    return TestBackend.start(vertx, req -> {
      if (retryAfter) {
        req.response().putHeader("Retry-After", "1");
      }
      req.response().setStatusCode(status).end("failing");
    }, true);
  }

  private TestBackend good(String name) {
    return TestBackend.start(vertx, req -> req.response().end(name));
  }

  private int get(int port, String uri) throws Exception {
    RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(port).setURI(uri);
    return TestClient.onLoop(vertx, () -> client.request(o).compose(r -> r.send())
        .compose((HttpClientResponse resp) -> resp.body().map(b -> resp.statusCode()))).await(10, TimeUnit.SECONDS);
  }

  private JsonObject backendJson(Fairway fw, String id) throws Exception {
    RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(fw.adminPort())
        .setURI("/api/services");
    String body = TestClient.onLoop(vertx, () -> client.request(o).compose(r -> r.send())
        .compose(HttpClientResponse::body)).await(5, TimeUnit.SECONDS).toString();
    for (Object s : new JsonArray(body)) {
      for (Object b : ((JsonObject) s).getJsonArray("backends")) {
        if (((JsonObject) b).getString("id").equals(id)) {
          return (JsonObject) b;
        }
      }
    }
    return new JsonObject().put("state", "absent");
  }

  private String state(Fairway fw, String id) throws Exception {
    return backendJson(fw, id).getString("state");
  }

  /** Sends requests to {@code uri} until {@code id} is ejected, at most {@code max}; the requests sent. */
  private int untilEjected(Fairway fw, String uri, String id, int max) throws Exception {
    int sent = 0;
    while (sent < max && !state(fw, id).equals("ejected")) {
      get(fw.proxyPort(), uri);
      sent++;
      Thread.sleep(20);
    }
    return sent;
  }

  @Test
  void aBackendsOwn503WithRetryAfterDoesNotEjectItButOneWithoutDoes() throws Exception {
    TestBackend shedding = failing(503, true);
    TestBackend broken = failing(503, false);
    TestBackend g1 = good("g1");
    TestBackend g2 = good("g2");
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("shedding", shedding.port(), 10),
        backend("broken", broken.port(), 10), backend("g1", g1.port(), 10), backend("g2", g2.port(), 10))
        .healthCheck(10_000, 500, 1, 3).build()).await(10, TimeUnit.SECONDS);

    untilEjected(fw, "/", "broken", 200);
    assertThat(state(fw, "broken")).isEqualTo("ejected");
    assertThat(backendJson(fw, "broken").getString("reason")).startsWith("service s: ").contains("consecutive 5xx");
    while (shedding.requests() < 30) {
      assertThat(get(fw.proxyPort(), "/")).isIn(200, 503);
    }
    Thread.sleep(600); // two observation periods
    assertThat(state(fw, "shedding")).as("30 overloaded answers in a row: not broken").isEqualTo("healthy");
    assertThat(state(fw, "broken")).isEqualTo("ejected");
  }

  @Test
  void twoServicesEjectByTheirOwnConsecutive5xx() throws Exception {
    TestBackend s1 = failing(500, false);
    TestBackend s2 = good("s2");
    TestBackend l1 = failing(500, false);
    TestBackend l2 = good("l2");
    TestConfig config = TestConfig.service("strict", backend("s1", s1.port(), 10), backend("s2", s2.port(), 10))
        .healthCheck(10_000, 500, 1, 3);
    config.lastService().getJsonObject("match").put("pathPrefix", "/strict");
    config.lastService().put("outlierDetection", new JsonObject().put("consecutive5xx", 3));
    config.addService("lenient", "/lenient", backend("l1", l1.port(), 10), backend("l2", l2.port(), 10))
        .healthCheck(10_000, 500, 1, 3);
    config.lastService().put("outlierDetection", new JsonObject().put("consecutive5xx", 20));
    Fairway fw = Fairway.start(vertx, config.build()).await(10, TimeUnit.SECONDS);

    untilEjected(fw, "/strict", "s1", 100);
    assertThat(state(fw, "s1")).isEqualTo("ejected");
    assertThat(backendJson(fw, "s1").getString("reason")).startsWith("service strict: ").contains("consecutive 5xx");
    while (l1.requests() < 10) {
      get(fw.proxyPort(), "/lenient");
    }
    Thread.sleep(600); // two observation periods
    assertThat(state(fw, "l1")).as("10 of 20").isEqualTo("healthy");

    untilEjected(fw, "/lenient", "l1", 200);
    assertThat(state(fw, "l1")).isEqualTo("ejected");
    assertThat(l1.requests()).isGreaterThanOrEqualTo(20);
    assertThat(backendJson(fw, "l1").getString("reason")).startsWith("service lenient: ");
  }
}
