package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.Streams;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.junit5.VertxExtension;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Peers that stop moving: a backend that stops reading an upload is given up after
 * {@code timeouts.uploadIdleMs} (504, slot freed), and a client that reads a download slowly
 * makes Fairway read the backend slowly too instead of buffering the body.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StuckPeersTest {
  private static final long OFFERED = 256L << 20;

  @Test
  void backendThatStopsReadingAnUploadGets504AfterUploadIdleMs(Vertx vertx) throws Exception {
    AtomicReference<HttpServerRequest> stuck = new AtomicReference<>();
    TestBackend b = TestBackend.start(vertx, req -> {
      req.pause();
      stuck.set(req);
    });
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("up", backend("b", b.port(), 5))
        .timeout("uploadIdleMs", 300).build());
    AtomicLong written = new AtomicLong();
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", fairway.proxyPort()), 5000);
      socket.setSoTimeout(10_000);
      Streams.blockingUpload(socket, OFFERED, written);

      RawHttp.Response r = RawHttp.readResponse(socket.getInputStream());

      assertThat(r.status()).isEqualTo(504);
      assertThat(r.body()).isEqualTo(Failure.UPLOAD_STALLED.reason() + "\n");
      assertThat(written.get()).as("the upload stalled well before its end").isLessThan(OFFERED);
    }
    TestFairway.assertIdleSoon(fairway);
    assertThat(b.requests()).isEqualTo(1);
  }

  @Test
  void slowReadingClientSlowsTheBackendInsteadOfBeingBuffered(Vertx vertx) throws Exception {
    AtomicLong sent = new AtomicLong();
    TestBackend b = TestBackend.start(vertx, req -> {
      req.response().setChunked(true);
      Streams.write(req.response(), OFFERED, sent).onSuccess(v -> req.response().end());
    });
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("down", backend("b", b.port(), 5)).build());
    AtomicLong read = new AtomicLong();
    AtomicReference<HttpClientResponse> resp = new AtomicReference<>();

    TestClient.onLoop(vertx, () -> vertx.createHttpClient().request(HttpMethod.GET, fairway.proxyPort(), "127.0.0.1", "/")
        .compose(req -> req.send())
        .onSuccess(r -> {
          resp.set(r);
          Streams.readThrottled(vertx, r, 2L << 20, read);
        })).await(5, TimeUnit.SECONDS);
    Thread.sleep(3000);

    long inTransit = sent.get() - read.get();
    assertThat(read.get()).as("the client did read").isGreaterThan(1L << 20);
    assertThat(inTransit).as("bytes the backend sent that the client has not read: bounded by buffers, "
        + "not the 256 MB body").isLessThan(40L << 20);
    assertThat(sent.get()).isLessThan(OFFERED / 4);
    resp.get().request().connection().close();
    TestFairway.assertIdleSoon(fairway);
  }
}
