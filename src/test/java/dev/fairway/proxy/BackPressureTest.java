package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.Streams;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.junit5.VertxExtension;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A backend that stops reading makes the client's upload stall: Fairway reads from the client only
 * as fast as the backend takes the bytes, so the client's write queue fills and stays full, and
 * the bytes in transit stay bounded by socket and write-queue buffers rather than growing with
 * the body.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class BackPressureTest {
  private static final long OFFERED = 256L << 20;
  private static final long BACKEND_READS = 1L << 20;
  /**
   * Most bytes the client may hand over before stalling: the backend's 1 MB plus the kernel
   * buffers of two loopback connections (a few MB each with autotuning) and the write queues of
   * client and proxy. A proxy that buffers would take the whole offered 256 MB.
   */
  private static final long IN_TRANSIT_BOUND = 40L << 20;

  @Test
  void stalledBackendStallsTheClientUpload(Vertx vertx) throws Exception {
    AtomicLong received = new AtomicLong();
    TestBackend b = TestBackend.start(vertx, req -> req.handler(buf -> {
      if (received.addAndGet(buf.length()) >= BACKEND_READS) {
        req.pause();
      }
    }));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("up", backend("b", b.port(), 5)).build());

    AtomicLong written = new AtomicLong();
    AtomicBoolean queueFull = new AtomicBoolean();
    HttpClient client = vertx.createHttpClient(); // held: Vert.x closes an unreachable client's pool
    HttpClientRequest upload = client
        .request(HttpMethod.PUT, fairway.proxyPort(), "127.0.0.1", "/upload")
        .await(5, TimeUnit.SECONDS);
    upload.setChunked(true);
    upload.exceptionHandler(e -> { });
    vertx.runOnContext(v -> Streams.write(upload, OFFERED, written));

    long stalledAt = awaitStall(upload, written, queueFull, () -> received.get() >= BACKEND_READS);

    assertThat(queueFull).as("client write queue full while stalled").isTrue();
    assertThat(stalledAt).as("bytes the client handed over before stalling")
        .isGreaterThanOrEqualTo(BACKEND_READS).isLessThan(IN_TRANSIT_BOUND);
    assertThat(received.get()).as("bytes the backend read")
        .isBetween(BACKEND_READS, BACKEND_READS + Streams.CHUNK * 2L);
    assertThat(b.inFlight()).isEqualTo(1);
    client.close();
  }

  /**
   * The client gives up on a stalled upload (connection reset) and the stuck backend then closes its
   * connection too: the slot is released. (Fairway cannot notice the client's reset by itself while
   * the upload is paused: a paused NIO socket is not read, so the reset is only seen once the
   * backend side fails. See the test report.)
   */
  @Test
  void abandonedStalledUploadFreesItsSlotOnceTheBackendGivesUp(Vertx vertx) throws Exception {
    AtomicReference<HttpServerRequest> stuck = new AtomicReference<>();
    TestBackend b = TestBackend.start(vertx, req -> {
      req.pause();
      stuck.set(req);
    });
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("up", backend("b", b.port(), 5)).build());
    AtomicLong written = new AtomicLong();
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", fairway.proxyPort()), 5000);
      Thread writer = Streams.blockingUpload(socket, OFFERED, written);

      long stalledAt = awaitStall(written, () -> stuck.get() != null);
      assertThat(stalledAt).isLessThan(IN_TRANSIT_BOUND);
      assertThat(b.inFlight()).as("backend requests in flight (of %d)", b.requests()).isEqualTo(1);

      socket.setSoLinger(true, 0);
      socket.close();
      writer.join(5000);
    }
    stuck.get().connection().close();

    TestFairway.assertIdleSoon(fairway);
    assertThat(b.requests()).isEqualTo(1);
  }


  /**
   * Waits for the stall (see below) and records in {@code queueFull} whether the client write
   * queue was then full.
   */
  private static long awaitStall(HttpClientRequest upload, AtomicLong written, AtomicBoolean queueFull,
      BooleanSupplier backendReached) throws InterruptedException {
    long stalledAt = awaitStall(written, backendReached);
    queueFull.set(upload.writeQueueFull());
    return stalledAt;
  }

  /**
   * Waits until the backend has the request and {@code written} has then not grown for one second
   * (at most ten seconds in all), and returns it. Waiting for the backend first matters: until
   * Fairway has a backend connection it does not read the client at all, which also stalls.
   */
  private static long awaitStall(AtomicLong written, BooleanSupplier backendReached) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    long last = -1;
    long quietSince = System.nanoTime();
    while (System.nanoTime() < deadline) {
      long now = written.get();
      if (now != last || !backendReached.getAsBoolean()) {
        last = now;
        quietSince = System.nanoTime();
      } else if (System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(1)) {
        break;
      }
      Thread.sleep(20);
    }
    return written.get();
  }
}
