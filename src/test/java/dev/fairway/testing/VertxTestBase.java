package dev.fairway.testing;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A fresh Vert.x and HTTP client per test, closed after it.
 *
 * <p>Example: {@code class HealthIT extends VertxTestBase} uses {@code vertx} to start backends
 * and a Fairway and {@code client} (through {@link TestClient#onLoop}) to call them.
 */
public abstract class VertxTestBase {
  protected Vertx vertx;
  protected HttpClientAgent client;

  @BeforeEach
  void startVertx() {
    vertx = TestVertx.create();
    client = vertx.createHttpClient();
  }

  @AfterEach
  void closeVertx() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
