package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.proxy.upstream.UpstreamPool;
import dev.fairway.testing.RawH2;
import dev.fairway.testing.Settled;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.VertxTestBase;
import io.netty.buffer.PooledByteBufAllocator;
import io.vertx.core.buffer.Buffer;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What Fairway holds of the responses of an HTTP/2 client that reads nothing: about one buffer
 * per connection, however many streams it opened. Fairway's connections draw their buffers from
 * {@link UpstreamPool#ALLOCATOR}, which nothing else in this JVM uses, so the bytes it has pinned
 * are Fairway's alone: the response bytes read from the backends and not yet sent to the client.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class H2ResponseBuffersTest extends VertxTestBase {
  private static final int STREAMS = 10;

  @Test
  void tenStreamsOfAClientWhoseSocketIsFullHoldAboutOneBufferBetweenThem() throws Exception {
    // The connection's buffer (64 KiB) and a read or two of 16 KiB; reads of 64 KiB by each stream
    // once the buffer was full would hold 640 KiB and more.
    assertThat(heldBy(port -> RawH2.stalledDownloads(port, STREAMS, "/big")))
        .as("bytes Fairway holds for %d stalled streams", STREAMS).isBetween(16L << 10, 256L << 10);
  }

  @Test
  void tenStreamsHeldBackByTheirWindowsHoldAtMostAFrameEach() throws Exception {
    // Each stream reads no more than its window takes, and at least a frame (16 KiB) once it is
    // spent: at most 160 KiB in all; reads of 64 KiB would hold 640 KiB.
    assertThat(heldBy(port -> RawH2.windowBoundDownloads(port, STREAMS, "/big")))
        .as("bytes Fairway holds for %d window-bound streams", STREAMS).isBetween(0L, 320L << 10);
  }

  /** A client made by {@code open} (given Fairway's port) that leaves its downloads under way. */
  private interface Client {
    Socket open(int port) throws Exception;
  }

  /**
   * Starts a backend answering 4 MiB and a Fairway in front of it, lets {@code client} open its
   * streams, and says how many more bytes Fairway has pinned once all of them reached the backend
   * and the count settled.
   */
  private long heldBy(Client client) throws Exception {
    Buffer body = Buffer.buffer(new byte[4 << 20]);
    TestBackend b = TestBackend.start(vertx, req -> req.response().end(body));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 20)).build());
    long before = pinned();
    long held;
    try (Socket s = client.open(fairway.proxyPort())) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (b.requests() < STREAMS && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(b.requests()).as("streams that reached the backend").isEqualTo(STREAMS);
      held = Settled.value(H2ResponseBuffersTest::pinned, 500, deadline) - before; // once it held still for 0.5 s
    }
    TestFairway.assertIdleSoon(fairway);
    return held;
  }

  private static long pinned() {
    return ((PooledByteBufAllocator) UpstreamPool.ALLOCATOR).pinnedDirectMemory();
  }
}
