package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** WebSocket upgrades pass through as a 101 tunnel and hold a backend slot while open. */
class WebSocketIT extends VertxTestBase {
  @Test
  void upgradeTunnelsBothWaysAndHoldsItsSlotUntilClosed() throws Exception {
    HttpServer echo = vertx.createHttpServer()
        .webSocketHandler(ws -> ws.textMessageHandler(m -> ws.writeTextMessage("echo " + m)))
        .requestHandler(req -> req.response().end("plain"))
        .listen(0, "127.0.0.1").await(5, TimeUnit.SECONDS);
    Fairway fw = Fairway.start(vertx, TestConfig.service("ws", backend("b1", echo.actualPort(), 3)).build())
        .await(10, TimeUnit.SECONDS);

    WebSocketClient wsClient = vertx.createWebSocketClient();
    WebSocket ws = dev.fairway.testing.TestClient.onLoop(vertx,
        () -> wsClient.connect(fw.proxyPort(), "127.0.0.1", "/chat")).await(5, TimeUnit.SECONDS);
    Promise<String> reply = Promise.promise();
    ws.textMessageHandler(reply::tryComplete);
    ws.writeTextMessage("hello");
    assertThat(reply.future().await(5, TimeUnit.SECONDS)).isEqualTo("echo hello");
    assertThat(fw.slotTable().view().endpoints().get("b1").active()).as("the open tunnel holds a slot").isEqualTo(1);

    ws.close().await(5, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (fw.slotTable().view().endpoints().get("b1").active() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(fw.slotTable().view().endpoints().get("b1").active()).as("released on close").isZero();
    assertThat(dev.fairway.testing.TestClient.get(vertx, client, fw.proxyPort(), "/").body())
        .as("plain requests still work").isEqualTo("plain");
  }
}
