package dev.fairway.testing;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP backend on 127.0.0.1 and a free port, counting the requests it sees and the most it
 * had in flight at once (in-flight = handler entered, response not yet ended).
 *
 * <p>Example: {@code TestBackend.start(vertx, req -> req.response().end("b1"))}; after the test,
 * {@code peak()} tells whether a capacity was respected.
 */
public final class TestBackend implements AutoCloseable {
  private final HttpServer server;
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();

  private TestBackend(Vertx vertx, Handler<HttpServerRequest> handler, boolean handlesHealth) {
    this.server = vertx.createHttpServer().requestHandler(req -> {
      if (!handlesHealth && "/health".equals(req.path())) {
        req.response().end("ok");
        return;
      }
      requests.incrementAndGet();
      int now = inFlight.incrementAndGet();
      peak.accumulateAndGet(now, Math::max);
      AtomicBoolean finished = new AtomicBoolean();
      Handler<Void> finish = v -> {
        if (finished.compareAndSet(false, true)) {
          inFlight.decrementAndGet();
        }
      };
      // Vert.x calls the end handler on close too, so both handlers may run: count once.
      req.response().endHandler(finish);
      req.response().closeHandler(finish);
      handler.handle(req);
    });
  }

  /**
   * Starts and waits until listening. Fairway's health checks ({@code GET /health}) are answered
   * 200 by the backend itself and not counted; {@code handler} sees every other request.
   */
  public static TestBackend start(Vertx vertx, Handler<HttpServerRequest> handler) {
    return start(vertx, handler, false);
  }

  /**
   * Starts and waits until listening.
   *
   * @param handlesHealth whether {@code handler} also answers (and the counters count) health checks
   */
  public static TestBackend start(Vertx vertx, Handler<HttpServerRequest> handler, boolean handlesHealth) {
    TestBackend b = new TestBackend(vertx, handler, handlesHealth);
    try {
      b.server.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("backend did not start", e);
    }
    return b;
  }

  public int port() {
    return server.actualPort();
  }

  public int requests() {
    return requests.get();
  }

  public int inFlight() {
    return inFlight.get();
  }

  public int peak() {
    return peak.get();
  }

  @Override
  public void close() throws Exception {
    server.close().await(10, TimeUnit.SECONDS);
  }
}
