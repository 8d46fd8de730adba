package dev.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.Settled;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that stops reading slows its {@code h2c://} backend's stream: Fairway stops giving the
 * stream's window back, so the backend can send no more than the window and what the sockets
 * hold, never the whole response into Fairway's memory.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class H2BackendBackPressureTest extends VertxTestBase {
  private static final int CHUNK = 64 * 1024;
  /** 32 MiB: far more than the stream's 1 MiB window plus what loopback sockets hold. */
  private static final long BODY = 32L << 20;

  @Test
  void aClientThatReadsNothingHoldsItsHttp2BackendAtTheStreamsWindow() throws Exception {
    AtomicLong sent = new AtomicLong();
    HttpServer backend = vertx.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(true))
        .requestHandler(req -> {
          if (req.path().equals("/health")) {
            req.response().end();
            return;
          }
          HttpServerResponse resp = req.response().putHeader("content-length", Long.toString(BODY));
          pump(resp, sent);
        });
    backend.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("big", new JsonObject().put("id", "b")
        .put("url", "h2c://127.0.0.1:" + backend.actualPort()).put("capacity", 4)).build());

    try (Socket client = new Socket()) {
      client.setReceiveBufferSize(16 * 1024);
      client.connect(new InetSocketAddress("127.0.0.1", fairway.proxyPort()));
      OutputStream out = client.getOutputStream();
      out.write("GET /big HTTP/1.1\r\nHost: big\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      long settled = Settled.value(sent::get, 1000, System.nanoTime() + TimeUnit.SECONDS.toNanos(15));
      // the stream's window (1 MiB), Fairway's client buffer (64 KiB) and the loopback sockets'
      // buffers (a few MiB at most); without the pause the backend would send all 32 MiB
      assertThat(settled).as("bytes the backend could send while the client read nothing")
          .isGreaterThan(CHUNK).isLessThan(8L << 20);
    }
    TestFairway.assertIdleSoon(fairway);
  }

  /** Writes the body in chunks as fast as the stream takes them, counting what was handed over. */
  private static void pump(HttpServerResponse resp, AtomicLong sent) {
    while (!resp.writeQueueFull() && sent.get() < BODY) {
      resp.write(Buffer.buffer(new byte[CHUNK]));
      sent.addAndGet(CHUNK);
    }
    if (sent.get() >= BODY) {
      resp.end();
    } else {
      resp.drainHandler(v -> pump(resp, sent));
    }
  }
}
