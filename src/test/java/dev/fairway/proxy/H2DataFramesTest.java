package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.RawH2;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How an HTTP/2 client connection's streams share its socket when it is the bottleneck: a whole
 * DATA frame per turn, not Netty's default of 1 KiB, which writes 16 times the frames for the same
 * bytes.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class H2DataFramesTest extends VertxTestBase {
  private static final int STREAMS = 10;
  private static final int BODY = 256 * 1024;

  @Test
  void streamsQueuedBehindASlowSocketTakeTurnsInFramesOfSixteenKibibytes() throws Exception {
    Buffer body = Buffer.buffer(new byte[BODY]);
    TestBackend b = TestBackend.start(vertx, req -> req.response().end(body));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 20)).build());

    List<Integer> sizes = RawH2.slowDownloads(fairway.proxyPort(), STREAMS, "/big");

    assertThat(sizes.stream().mapToLong(Integer::longValue).sum()).as("DATA bytes").isEqualTo((long) STREAMS * BODY);
    // 2.5 MiB in frames of 16 KiB is 160 frames, and about 210 come (a turn can end mid-frame where
    // the socket's room does); in Netty's 1 KiB turns about 670 came
    assertThat(sizes.size()).as("DATA frames for %d streams of %d bytes", STREAMS, BODY).isLessThan(320);
  }
}
