package dev.fairway.proxy;

import dev.fairway.testing.TestVertx;
import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.PoolOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Backends that close idle keep-alive connections after a few milliseconds: Fairway keeps reusing
 * pooled connections the backend has just closed, and none of those races may become a client
 * error.
 */
class StaleKeepAliveIT {
  /** The backends' keep-alive timeout: the pauses between batches keep hitting it. */
  private static final int IDLE_MS = 10;
  private Vertx vertx;
  private HttpClientAgent client;

  @BeforeEach
  void setUp() {
    vertx = TestVertx.create();
    client = vertx.createHttpClient(new PoolOptions().setHttp1MaxSize(10));
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /**
   * A backend with a keep-alive timeout as servers have one: a connection idle for
   * {@link #IDLE_MS} after a response is closed by the backend.
   */
  private HttpServer impatientBackend(String name) throws Exception {
    Map<HttpConnection, Long> timers = new ConcurrentHashMap<>();
    return vertx.createHttpServer()
        .requestHandler(req -> {
          HttpConnection conn = req.connection();
          Long timer = timers.remove(conn);
          if (timer != null) {
            vertx.cancelTimer(timer);
          }
          req.response().end(name).onSuccess(v -> timers.put(conn, vertx.setTimer(IDLE_MS, t -> {
            timers.remove(conn);
            conn.close();
          })));
        })
        .listen(0, "127.0.0.1").await(5, TimeUnit.SECONDS);
  }

  @Test
  void pooledConnectionsClosedByTheBackendNeverBecomeClientErrors() throws Exception {
    HttpServer b1 = impatientBackend("b1");
    HttpServer b2 = impatientBackend("b2");
    HttpServer b3 = impatientBackend("b3");
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", b1.actualPort(), 50),
        backend("b2", b2.actualPort(), 50), backend("b3", b3.actualPort(), 50)).healthCheck(1000, 500, 1, 3).build())
        .await(10, TimeUnit.SECONDS);

    AtomicInteger errors = new AtomicInteger();
    List<String> firstErrors = new ArrayList<>();
    for (int batch = 0; batch < 200; batch++) {
      List<Future<Integer>> inFlight = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        inFlight.add(TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, fw.proxyPort(), "127.0.0.1", "/")
            .compose(r -> r.send()).compose((HttpClientResponse resp) -> resp.body().map(b -> resp.statusCode()))));
      }
      Future.join(inFlight).await(10, TimeUnit.SECONDS);
      for (Future<Integer> f : inFlight) {
        if (f.failed() || f.result() != 200) {
          errors.incrementAndGet();
          if (firstErrors.size() < 5) {
            firstErrors.add(f.failed() ? f.cause().toString() : "status " + f.result());
          }
        }
      }
      Thread.sleep(IDLE_MS - 3 + batch % 7);
    }
    assertThat(errors.get()).as("errors of 1000, first: %s", firstErrors).isZero();
    assertThat(fw.metrics().registry().find("fairway_retries").counter().count())
        .as("the race did happen").isPositive();
  }
}
