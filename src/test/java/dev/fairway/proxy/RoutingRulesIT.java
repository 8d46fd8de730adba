package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Method and header rules with real backends and a real Fairway: three services on {@code /api}
 * (any method; {@code POST} and {@code PUT}; {@code X-Canary: yes} from a {@code curl/...} agent)
 * and one on {@code /}; each request, bodiless or with a body, reaches the backend its rules and
 * the documented order pick; {@code stripPrefix} and {@code rewritePrefix} change the target the
 * backend reads.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RoutingRulesIT {
  @Test
  void methodAndHeaderRulesPickTheService(Vertx vertx) throws Exception {
    TestBackend plain = TestBackend.start(vertx, req -> req.response().end("plain"));
    TestBackend writes = TestBackend.start(vertx, req -> req.body().onSuccess(b -> req.response().end("writes")));
    TestBackend canary = TestBackend.start(vertx, req -> req.body().onSuccess(b -> req.response().end("canary")));
    TestBackend root = TestBackend.start(vertx, req -> req.response().end("root"));
    TestConfig config = TestConfig.service("root", backend("r", root.port(), 10))
        .addService("api", "/api", backend("p", plain.port(), 10))
        .addService("api-writes", "/api", backend("w", writes.port(), 10));
    config.lastService().getJsonObject("match").put("method", new JsonArray().add("post").add("PUT"));
    config.addService("api-canary", "/api", backend("c", canary.port(), 10));
    config.lastService().getJsonObject("match").put("headers", new JsonArray()
        .add(new JsonObject().put("name", "X-Canary").put("exact", "yes"))
        .add(new JsonObject().put("name", "user-agent").put("regex", "curl/[0-9.]+")));
    Fairway fairway = TestFairway.start(vertx, config.build());
    HttpClient client = vertx.createHttpClient();
    MultiMap canaryCurl = MultiMap.caseInsensitiveMultiMap().add("X-Canary", "yes").add("User-Agent", "curl/8.5.0");
    MultiMap canaryBrowser = MultiMap.caseInsensitiveMultiMap().add("X-Canary", "yes").add("User-Agent", "Mozilla/5.0");
    MultiMap none = MultiMap.caseInsensitiveMultiMap();
    MultiMap canaryCaps = MultiMap.caseInsensitiveMultiMap().add("X-Canary", "YES").add("User-Agent", "curl/8.5.0");

    List<String> answers = new ArrayList<>();
    answers.add(send(vertx, client, fairway, HttpMethod.GET, "/api/x", none, null));
    answers.add(send(vertx, client, fairway, HttpMethod.POST, "/api/x", none, "body"));
    answers.add(send(vertx, client, fairway, HttpMethod.PUT, "/api/x", none, "body"));
    answers.add(send(vertx, client, fairway, HttpMethod.GET, "/api/x", canaryCurl, null));
    answers.add(send(vertx, client, fairway, HttpMethod.GET, "/api/x", canaryBrowser, null));
    answers.add(send(vertx, client, fairway, HttpMethod.GET, "/api/x", canaryCaps, null));
    answers.add(send(vertx, client, fairway, HttpMethod.POST, "/api/x", canaryCurl, "body"));
    answers.add(send(vertx, client, fairway, HttpMethod.POST, "/other", canaryCurl, "body"));

    assertThat(String.join(" ", answers))
        .as("POST with the canary fields: api-canary's two header conditions beat api-writes' one method list")
        .isEqualTo("plain writes writes canary plain plain canary root");
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void stripPrefixAndRewritePrefixChangeTheBackendsTarget(Vertx vertx) throws Exception {
    TestBackend echo = TestBackend.start(vertx, req -> req.body().onSuccess(b -> req.response().end(req.uri())));
    TestConfig config = TestConfig.service("root", backend("r", echo.port(), 10))
        .addService("strip", "/shop", backend("s", echo.port(), 10));
    config.lastService().getJsonObject("match").put("stripPrefix", true);
    config.addService("moved", "/old/", backend("m", echo.port(), 10));
    config.lastService().getJsonObject("match").put("rewritePrefix", "/new/");
    Fairway fairway = TestFairway.start(vertx, config.build());
    HttpClient client = vertx.createHttpClient();
    MultiMap none = MultiMap.caseInsensitiveMultiMap();

    List<String> targets = new ArrayList<>();
    targets.add(send(vertx, client, fairway, HttpMethod.GET, "/shop/cart?id=7", none, null));
    targets.add(send(vertx, client, fairway, HttpMethod.POST, "/shop/cart", none, "body"));
    targets.add(send(vertx, client, fairway, HttpMethod.GET, "/shop", none, null));
    targets.add(send(vertx, client, fairway, HttpMethod.GET, "/old/a/b", none, null));
    targets.add(send(vertx, client, fairway, HttpMethod.PUT, "/old/a?x=1", none, "body"));
    targets.add(send(vertx, client, fairway, HttpMethod.GET, "/shopping", none, null));
    targets.add(send(vertx, client, fairway, HttpMethod.GET, "/other/x", none, null));

    assertThat(String.join(" ", targets)).isEqualTo("/cart?id=7 /cart / /new/a/b /new/a?x=1 /ping /other/x");
    TestFairway.assertIdleSoon(fairway);
  }

  private static String send(Vertx vertx, HttpClient client, Fairway fairway, HttpMethod method, String path,
                             MultiMap headers, String body) throws Exception {
    RequestOptions o = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(fairway.proxyPort())
        .setURI(path).setHeaders(headers);
    Future<String> answer = TestClient.onLoop(vertx, () -> client.request(o)
        .compose(req -> body == null ? req.send() : req.send(body))
        .compose(HttpClientResponse::body)
        .map(Object::toString));
    return answer.await(5, TimeUnit.SECONDS);
  }
}
