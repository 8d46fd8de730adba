package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Clients that read their responses slowly, or not at all ({@code slowhttptest -X}), cannot hold
 * every slot of a backend: after {@code timeouts.slowClientMs} of being held back, a response's
 * slot goes back while the response goes on, read from the backend only as fast as its client
 * takes it.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 40, unit = TimeUnit.SECONDS)
class SlowReadersTest {
  /** Far more than the socket buffers and Netty's write buffer on both sides can hold. */
  private static final int BIG = 16 * 1024 * 1024;
  private Vertx vertx;
  private TestBackend backend;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    Buffer big = Buffer.buffer(new byte[BIG]);
    backend = TestBackend.start(vertx, req -> {
      if (req.path().equals("/big")) {
        req.response().end(big);
      } else {
        req.response().end("small");
      }
    });
  }

  private Fairway start(long slowClientMs, long waitTimeoutMs) {
    return TestFairway.start(vertx, TestConfig.service("web", backend("b", backend.port(), 2)).slots(2, waitTimeoutMs)
        .timeout("slowClientMs", slowClientMs).build());
  }

  /** As many clients as the backend has slots ask for the big answer and read none of it. */
  private static List<Socket> stalledReaders(Fairway f, int n) throws IOException {
    List<Socket> readers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Socket s = new Socket();
      s.setReceiveBufferSize(4096);
      s.connect(new InetSocketAddress("127.0.0.1", f.proxyPort()), 5000);
      s.setSoTimeout(10_000);
      s.getOutputStream().write("GET /big HTTP/1.1\r\nHost: a\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      readers.add(s);
    }
    return readers;
  }

  @Test
  void clientsThatStopReadingGiveTheirSlotsBackAndFreshClientsAreServed() throws Exception {
    Fairway f = start(300, 3000);
    List<Socket> readers = stalledReaders(f, 2);
    Thread.sleep(1000);

    for (int i = 0; i < 3; i++) {
      RawHttp.Response fresh = RawHttp.exchange(f.proxyPort(), "GET /small HTTP/1.1\r\nHost: a\r\n\r\n");
      assertThat(fresh.status()).as("fresh client %d", i).isEqualTo(200);
      assertThat(fresh.body()).isEqualTo("small");
    }

    InputStream in = readers.get(0).getInputStream();
    RawHttp.readHead(in);
    assertThat(in.readNBytes(BIG).length).as("the slow reader still gets its whole answer").isEqualTo(BIG);
    for (Socket s : readers) {
      s.close();
    }
    TestFairway.assertIdleSoon(f);
  }

  @Test
  void withSlowClientMsOffTheyKeepTheirSlots() throws Exception {
    Fairway f = start(-1, 500);
    List<Socket> readers = stalledReaders(f, 2);
    Thread.sleep(1000);

    assertThat(RawHttp.exchange(f.proxyPort(), "GET /small HTTP/1.1\r\nHost: a\r\n\r\n").status()).isEqualTo(503);
    for (Socket s : readers) {
      s.close();
    }
    TestFairway.assertIdleSoon(f);
  }
}
