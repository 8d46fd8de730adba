package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestClient.Reply;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.junit5.VertxExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Requests reach real backends unchanged and round robin alternates between two of them. */
@ExtendWith(VertxExtension.class)
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ForwardingTest {

  @Test
  void roundRobinAlternatesBetweenTwoBackends(Vertx vertx) throws Exception {
    TestBackend b1 = TestBackend.start(vertx, req -> req.response().end("b1"));
    TestBackend b2 = TestBackend.start(vertx, req -> req.response().end("b2"));
    Fairway fairway = TestFairway.start(vertx,
        TestConfig.service("web", backend("b1", b1.port(), 10), backend("b2", b2.port(), 10)).build());
    HttpClient client = vertx.createHttpClient();

    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      Reply r = TestClient.get(vertx, client, fairway.proxyPort(), "/");
      assertThat(r.status()).isEqualTo(200);
      seen.add(r.body());
    }

    List<String> expected = seen.get(0).equals("b1")
        ? List.of("b1", "b2", "b1", "b2", "b1", "b2", "b1", "b2")
        : List.of("b2", "b1", "b2", "b1", "b2", "b1", "b2", "b1");
    assertThat(seen).isEqualTo(expected);
    assertThat(b1.requests()).isEqualTo(4);
    assertThat(b2.requests()).isEqualTo(4);
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void methodUriBodyStatusAndHeadersPassThrough(Vertx vertx) throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> req.body().onSuccess(body -> req.response()
        .setStatusCode(201)
        .setStatusMessage("Made It")
        .putHeader("X-Echo-Header", String.valueOf(req.getHeader("X-Custom")))
        .end(req.method() + " " + req.uri() + " " + body)));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10)).build());
    HttpClient client = vertx.createHttpClient();

    record Answer(int status, String message, String echo, String body) {
    }
    Answer a = TestClient.onLoop(vertx, () -> client.request(HttpMethod.PUT, fairway.proxyPort(), "127.0.0.1",
            "/a/b?x=1&y=%20z")
        .compose(req -> req.putHeader("X-Custom", "kept").send("payload"))
        .compose(resp -> resp.body().map(body -> new Answer(resp.statusCode(), resp.statusMessage(),
            resp.getHeader("X-Echo-Header"), body.toString()))))
        .await(5, TimeUnit.SECONDS);

    assertThat(a).isEqualTo(new Answer(201, "Made It", "kept", "PUT /a/b?x=1&y=%20z payload"));
    TestFairway.assertIdleSoon(fairway);
  }
}
