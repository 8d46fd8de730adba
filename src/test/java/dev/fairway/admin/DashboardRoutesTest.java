package dev.fairway.admin;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestClient.Reply;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's static files come from the jar at {@code GET /} without shadowing the API,
 * metrics and health routes registered before them.
 */
class DashboardRoutesTest {
  private Vertx vertx;
  private HttpClientAgent client;
  private Fairway fairway;

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
    client = vertx.createHttpClient();
    TestBackend b1 = TestBackend.start(vertx, req -> req.response().end("b1"));
    fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b1", b1.port(), 4)).build());
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private Reply admin(HttpMethod method, String path) throws Exception {
    return TestClient.onLoop(vertx, () -> client.request(method, fairway.adminPort(), "127.0.0.1", path)
            .compose(req -> req.send())
            .compose(resp -> resp.body().map(b -> new Reply(resp.statusCode(), resp.headers(), b.toString()))))
        .await(10, TimeUnit.SECONDS);
  }

  @Test
  void rootServesTheDashboardPageAndItsAssets() throws Exception {
    Reply page = admin(HttpMethod.GET, "/");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.headers().get("content-type")).startsWith("text/html");
    assertThat(page.body()).contains("<title>Fairway dashboard</title>", "dashboard.js", "dashboard.css");

    Reply js = admin(HttpMethod.GET, "/dashboard.js");
    assertThat(js.status()).isEqualTo(200);
    assertThat(js.headers().get("content-type")).contains("javascript");
    assertThat(js.body()).contains("api/services");
    assertThat(admin(HttpMethod.GET, "/dashboard.css").status()).isEqualTo(200);
    assertThat(admin(HttpMethod.GET, "/index.html").body()).isEqualTo(page.body());
  }

  @Test
  void staticRouteDoesNotShadowTheApiMetricsOrHealth() throws Exception {
    Reply services = admin(HttpMethod.GET, "/api/services");
    assertThat(services.status()).isEqualTo(200);
    assertThat(services.headers().get("content-type")).isEqualTo("application/json");
    assertThat(new JsonArray(services.body()).getJsonObject(0).getString("name")).isEqualTo("web");

    Reply health = admin(HttpMethod.GET, "/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.body()).isEqualTo("ok\n");

    Reply metrics = admin(HttpMethod.GET, "/metrics");
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.body()).contains("fairway_backend_active");

    assertThat(admin(HttpMethod.POST, "/api/backends/b1/lame-duck").status()).isEqualTo(401);
    assertThat(admin(HttpMethod.GET, "/api/no-such-thing").status()).isEqualTo(404);
    assertThat(admin(HttpMethod.GET, "/no-such-file.js").status()).isEqualTo(404);
  }
}
