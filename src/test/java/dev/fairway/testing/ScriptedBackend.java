package dev.fairway.testing;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A raw TCP backend on 127.0.0.1 and a free port that misbehaves on purpose: it reads each
 * connection's request head (up to the blank line) and then hands the socket to a script that
 * writes whatever bytes it likes, or nothing, and closes when it likes. Fairway's health checks
 * ({@code GET /health}) get a plain 200 and are not counted.
 *
 * <p>Example: {@code ScriptedBackend.start(vertx, s -> s.write("garbage\r\n\r\n").onComplete(v -> s.close()))}
 * answers every request with bytes that are not HTTP.
 */
public final class ScriptedBackend implements AutoCloseable {
  private final NetServer server;
  private final AtomicInteger requests = new AtomicInteger();

  private ScriptedBackend(Vertx vertx, Handler<NetSocket> script) {
    this.server = vertx.createNetServer().connectHandler(socket -> {
      StringBuilder head = new StringBuilder();
      socket.handler(new Handler<>() {
        private boolean scripted;

        @Override
        public void handle(Buffer data) {
          if (scripted) {
            return;
          }
          head.append(data.toString(StandardCharsets.ISO_8859_1));
          if (head.indexOf("\r\n\r\n") >= 0) {
            scripted = true;
            if (head.indexOf("GET /health ") == 0) {
              socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
                  .onComplete(v -> socket.close());
              return;
            }
            requests.incrementAndGet();
            script.handle(socket);
          }
        }
      });
    });
  }

  /** Starts and waits until listening. */
  public static ScriptedBackend start(Vertx vertx, Handler<NetSocket> script) {
    ScriptedBackend b = new ScriptedBackend(vertx, script);
    try {
      b.server.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("scripted backend did not start", e);
    }
    return b;
  }

  public int port() {
    return server.actualPort();
  }

  /** Request heads read so far. */
  public int requests() {
    return requests.get();
  }

  @Override
  public void close() throws Exception {
    server.close().await(10, TimeUnit.SECONDS);
  }
}
