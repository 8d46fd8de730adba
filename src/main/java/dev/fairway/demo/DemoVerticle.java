package dev.fairway.demo;

import dev.fairway.config.DemoSettings;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * Sample backends started in the Fairway process, so a fresh checkout serves traffic at once.
 *
 * <p>Example: with {@code "demo": {"backends": [{"port": 9001}]}}, {@code curl 127.0.0.1:9001/}
 * answers {@code demo backend 127.0.0.1:9001} after {@code workMs} of simulated work, and
 * {@code /health} answers {@code ok}.
 */
public final class DemoVerticle extends VerticleBase {
  private final DemoSettings settings;
  private final List<HttpServer> servers = new ArrayList<>();

  public DemoVerticle(DemoSettings settings) {
    this.settings = settings;
  }

  @Override
  public Future<?> start() {
    List<Future<HttpServer>> started = new ArrayList<>();
    for (DemoSettings.DemoBackend b : settings.backends()) {
      String id = "127.0.0.1:" + b.port();
      HttpServer server = vertx.createHttpServer().requestHandler(req -> handle(req, id, b.workMs()));
      servers.add(server);
      started.add(server.listen(b.port(), "127.0.0.1"));
    }
    return Future.all(started);
  }

  private void handle(HttpServerRequest req, String id, long workMs) {
    if ("/health".equals(req.path())) {
      req.response().putHeader("content-type", "text/plain").end("ok\n");
      return;
    }
    req.end().onComplete(ended -> {
      Runnable answer = () -> req.response()
          .putHeader("content-type", "text/plain")
          .putHeader("x-backend", id)
          .end("demo backend " + id + "\n");
      if (workMs <= 0) {
        answer.run();
      } else {
        vertx.setTimer(workMs, t -> answer.run());
      }
    });
  }
}
