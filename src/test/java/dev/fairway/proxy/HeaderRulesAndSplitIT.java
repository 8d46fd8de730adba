package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.Main;
import dev.fairway.testing.FairwayProcess;
import dev.fairway.testing.FreePorts;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-service header rules and the weighted split with real backends and a real Fairway: the
 * backend reads the request edits and the client the response edits, on the byte path and the
 * decoded path, over HTTP/1.1 and HTTP/2 on either side, but Fairway's own answers stay as they are; a config
 * that edits a reserved header does not start (exit 2); a 95/5 split over 100 requests on one
 * connection gives exactly 95/5 in smooth order, served with the target's own header rules.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeaderRulesAndSplitIT {
  private static final JsonObject REQUEST_RULES = new JsonObject()
      .put("set", new JsonObject().put("X-Env", "prod"))
      .put("add", new JsonObject().put("X-Tag", "fairway"))
      .put("remove", new JsonArray().add("Cookie"));
  private static final JsonObject RESPONSE_RULES = new JsonObject()
      .put("set", new JsonObject().put("X-Frame-Options", "DENY"))
      .put("add", new JsonObject().put("X-Served-By", "fairway"))
      .put("remove", new JsonArray().add("Server").add("X-Debug"));

  @TempDir
  Path dir;

  @Test
  void theBackendSeesTheRequestEditsAndTheClientTheResponseEdits(Vertx vertx) throws Exception {
    TestBackend echo = TestBackend.start(vertx, req -> req.body().onSuccess(b -> {
      String seen = "cookie=" + req.headers().getAll("cookie") + " x-env=" + req.headers().getAll("x-env")
          + " x-tag=" + req.headers().getAll("x-tag");
      HttpServerResponse resp = req.response().putHeader("Server", "backend").putHeader("X-Debug", "1")
          .putHeader("X-Keep", "k").putHeader("X-Frame-Options", "SAMEORIGIN");
      if (req.path().endsWith("/chunked")) {
        resp.setChunked(true).write(seen);
        resp.end();
      } else {
        resp.end(seen);
      }
    }));
    TestConfig config = TestConfig.service("api", backend("e", echo.port(), 10));
    config.lastService().put("requestHeaders", REQUEST_RULES).put("responseHeaders", RESPONSE_RULES);
    config.addService("h2", "/h2", backend("e2", echo.port(), 10).put("url", "h2c://127.0.0.1:" + echo.port()));
    config.lastService().put("requestHeaders", REQUEST_RULES).put("responseHeaders", RESPONSE_RULES);
    config.addService("down", "/down", backend("d", FreePorts.one(), 10));
    config.lastService().put("responseHeaders", RESPONSE_RULES);
    Fairway fairway = TestFairway.start(vertx, config.build());
    HttpClient h1 = vertx.createHttpClient();
    HttpClient h2 = vertx.httpClientBuilder().with(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
        .setHttp2ClearTextUpgrade(false)).build();
    String edited = "200 cookie=[] x-env=[prod] x-tag=[client, fairway] | server=null x-debug=null x-keep=k "
        + "x-frame-options=[DENY] x-served-by=[fairway]";

    List<String> answers = new ArrayList<>();
    for (HttpClient client : List.of(h1, h2)) {
      for (String path : List.of("/x", "/x/chunked", "/h2/x", "/h2/x/chunked")) {
        answers.add(send(vertx, client, fairway.proxyPort(), HttpMethod.GET, path, null));
        answers.add(send(vertx, client, fairway.proxyPort(), HttpMethod.POST, path, "body"));
      }
    }
    String own = send(vertx, h1, fairway.proxyPort(), HttpMethod.GET, "/down", null);

    assertThat(answers).as("bodiless and with a body, length-framed and chunked, HTTP/1.1 and HTTP/2 clients, "
        + "HTTP/1.1 and h2c backends").hasSize(16).containsOnly(edited);
    assertThat(own).as("Fairway's own answer is not the backend's: no response rules")
        .startsWith("503 ").endsWith("server=null x-debug=null x-keep=null x-frame-options=[] x-served-by=[]");
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void aConfigThatEditsAReservedHeaderExitsWithTwo() throws Exception {
    Path conf = dir.resolve("reserved.json");
    Files.writeString(conf, new JsonObject()
        .put("proxy", new JsonObject().put("host", "127.0.0.1").put("port", 0))
        .put("admin", new JsonObject().put("host", "127.0.0.1").put("port", 0))
        .put("services", new JsonArray().add(new JsonObject().put("name", "api")
            .put("requestHeaders", new JsonObject().put("set", new JsonObject().put("X-Forwarded-For", "1.2.3.4")))
            .put("backends", new JsonArray().add(new JsonObject().put("url", "http://127.0.0.1:9001")))))
        .encodePrettily());

    try (FairwayProcess p = FairwayProcess.start(conf)) {
      assertThat(p.waitForExit(30)).isTrue();
      assertThat(p.exitValue()).isEqualTo(Main.EXIT_CONFIG);
      assertThat(p.lines()).contains("  services[0].requestHeaders.set.X-Forwarded-For: \"X-Forwarded-For\" is "
          + "invalid; expected a header name made of token characters (RFC 9110 §5.6.2), with no underscore, not "
          + "hop-by-hop and not one Fairway sets or reads itself (Host, Via, Forwarded, X-Forwarded-*, X-Request-Id, "
          + "X-Fairway-*, grpc-timeout, traceparent, tracestate, ...)");
    }
  }

  @Test
  void aNinetyFiveFiveSplitOnOneConnectionIsExactAndServedByEachTargetsRules(Vertx vertx) throws Exception {
    TestBackend v1 = TestBackend.start(vertx, req -> req.response().end("v1"));
    TestBackend v2 = TestBackend.start(vertx, req -> req.response().end("v2"));
    TestConfig config = TestConfig.service("canary");
    config.lastService().put("split", new JsonArray()
        .add(new JsonObject().put("service", "v1").put("weight", 95))
        .add(new JsonObject().put("service", "v2").put("weight", 5)));
    config.addService("v1", "/", backend("b1", v1.port(), 10));
    config.lastService().getJsonObject("match").put("host", "v1.internal");
    config.addService("v2", "/", backend("b2", v2.port(), 10));
    config.lastService().getJsonObject("match").put("host", "v2.internal");
    config.lastService().put("responseHeaders", new JsonObject().put("set", new JsonObject().put("X-Canary", "yes")));
    Fairway fairway = TestFairway.start(vertx, config.build());
    HttpClient one = vertx.createHttpClient(new HttpClientOptions(), new PoolOptions().setHttp1MaxSize(1));

    List<Integer> canary = new ArrayList<>();
    int marked = 0;
    for (int i = 1; i <= 100; i++) {
      String a = send(vertx, one, fairway.proxyPort(), HttpMethod.GET, "/", null);
      if (a.startsWith("200 v2 ")) {
        canary.add(i);
      }
      marked += a.contains("x-canary=yes") ? 1 : 0;
    }

    assertThat(canary).as("one lane's smooth sequence: v2 at the 11th, 31st, ... request").containsExactly(11, 31, 51, 71, 91);
    assertThat(marked).as("v2's own responseHeaders apply to its share, and only to it").isEqualTo(5);
    assertThat(v1.requests()).isEqualTo(95);
    assertThat(v2.requests()).isEqualTo(5);
    RawHttp.Response services = RawHttp.exchange(fairway.adminPort(), "GET /api/services HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    JsonObject split = new JsonArray(services.body()).stream().map(JsonObject.class::cast)
        .filter(s -> s.getString("name").equals("canary")).findFirst().orElseThrow();
    assertThat(split.getJsonArray("split").encode())
        .isEqualTo("[{\"service\":\"v1\",\"weight\":95},{\"service\":\"v2\",\"weight\":5}]");
    assertThat(split.getJsonArray("backends")).isEmpty();
    TestFairway.assertIdleSoon(fairway);
  }

  /** One request: its status, body and the response fields the rules touch, on one line. */
  private static String send(Vertx vertx, HttpClient client, int port, HttpMethod method, String path, String body)
      throws Exception {
    RequestOptions o = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(path)
        .setHeaders(MultiMap.caseInsensitiveMultiMap().add("Cookie", "s=1").add("X-Env", "dev").add("X-Tag", "client"));
    return TestClient.onLoop(vertx, () -> client.request(o)
            .compose(req -> body == null ? req.send() : req.send(body))
            .compose(resp -> resp.body().map(b -> line(resp, b.toString()))))
        .await(10, TimeUnit.SECONDS);
  }

  private static String line(HttpClientResponse resp, String body) {
    MultiMap h = resp.headers();
    return resp.statusCode() + " " + body + " | server=" + h.get("server") + " x-debug=" + h.get("x-debug")
        + " x-keep=" + h.get("x-keep") + " x-frame-options=" + h.getAll("x-frame-options") + " x-served-by="
        + h.getAll("x-served-by") + (h.contains("x-canary") ? " x-canary=" + h.get("x-canary") : "");
  }
}
