package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.RecordingBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The edge defects an independent probe found (issue 19), each against a real Fairway and a raw
 * backend that records every request head it reads: chunk sizes Netty's decoder cannot hold,
 * leftover bytes on pooled backend connections, {@code h2c} upgrades, switching protocols
 * unasked, interim responses and chunk extensions.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EdgeDefectsTest {
  private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfresh";
  private Vertx vertx;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  private Fairway start(RecordingBackend b, int capacity) {
    return TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), capacity)).timeouts(2000, 5000)
        .build());
  }

  private static void write(OutputStream out, String s) throws IOException {
    out.write(s.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  private static Socket open(Fairway f) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", f.proxyPort()), 5000);
    s.setSoTimeout(5000);
    return s;
  }

  /** Everything the peer sends until it closes or goes quiet for a second. */
  private static String readUntilQuiet(Socket s) throws IOException {
    s.setSoTimeout(1000);
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    InputStream in = s.getInputStream();
    byte[] buf = new byte[4096];
    try {
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
        all.write(buf, 0, n);
      }
    } catch (SocketTimeoutException | java.net.SocketException quietOrReset) {
      // what came is what counts
    }
    return all.toString(StandardCharsets.ISO_8859_1);
  }

  /** The data of a chunked body (sizes in plain hex). */
  private static String dechunk(String chunked) {
    StringBuilder data = new StringBuilder();
    int at = 0;
    for (int size; (size = Integer.parseInt(chunked.substring(at, chunked.indexOf("\r\n", at)), 16)) > 0; ) {
      int start = chunked.indexOf("\r\n", at) + 2;
      data.append(chunked, start, start + size);
      at = start + size + 2;
    }
    return data.toString();
  }

  // 1. chunk sizes from 2^31 up

  @ParameterizedTest(name = "chunk size {0}")
  @ValueSource(strings = {"100000000", "80000000", "1000000005", "ffffffffffffffff"})
  void aChunkSizeNettyCannotHoldIsRefusedAndWhatFollowsNeverReachesTheBackend(String size) throws Exception {
    RecordingBackend b = RecordingBackend.start((head, out) -> {
      write(out, OK);
      return true;
    });
    Fairway f = start(b, 10);
    try (Socket s = open(f)) {
      write(s.getOutputStream(), "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + size
          + "\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n");
      RawHttp.Closing c = RawHttp.readAndAwaitClose(s);
      assertThat(c.response().status()).isEqualTo(400);
      assertThat(c.closed()).isTrue();
    }
    Thread.sleep(200);
    assertThat(b.heads()).as("the backend never runs a request Fairway did not write").doesNotContain(
        "GET /smuggled HTTP/1.1");
    assertThat(b.wholeBodies()).as("nor completes the truncated one").isZero();
    TestFairway.assertIdleSoon(f);
    b.close();
  }

  @Test
  void aBackendChunkSizeOf2To31CutsTheClientsResponseInsteadOfEndingIt() throws Exception {
    RecordingBackend b = RecordingBackend.start((head, out) -> {
      write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n80000005\r\nhello\r\n0\r\n\r\n");
      return true;
    });
    Fairway f = start(b, 10);
    try (Socket s = open(f)) {
      write(s.getOutputStream(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      String got = readUntilQuiet(s);
      assertThat(got).startsWith("HTTP/1.1 200").contains("hello").doesNotEndWith("0\r\n\r\n");
    }
    TestFairway.assertIdleSoon(f);
    b.close();
  }

  // 2. leftover bytes must not poison the pool

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      "HEAD answered with a body|HEAD|HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil",
      "204 with a body|GET|HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil",
      "304 with a body|GET|HTTP/1.1 304 Not Modified\r\n\r\nevil",
      "a whole stray response after one|GET|HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil",
      "a partial one|GET|HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 2",
      "stray bytes after a chunked one|GET|HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\nevil",
      "a stray response while idle|GET|HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok<pause>HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil",
  })
  void leftoverBytesOnABackendConnectionNeverReachAnotherClient(String labelMethodAnswer) throws Exception {
    String[] parts = labelMethodAnswer.split("\\|", 3);
    String poison = parts[2];
    RecordingBackend b = RecordingBackend.start((head, out) -> {
      if (!head.contains(" /poison ")) {
        write(out, OK);
        return true;
      }
      int pause = poison.indexOf("<pause>");
      write(out, pause < 0 ? poison : poison.substring(0, pause));
      if (pause >= 0) {
        Thread.sleep(150);
        write(out, poison.substring(pause + 7));
      }
      return true;
    });
    Fairway f = start(b, 1);
    try (Socket first = open(f)) {
      write(first.getOutputStream(), parts[1] + " /poison HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(RawHttp.readHead(first.getInputStream())).startsWith("HTTP/1.1 ");
    }
    Thread.sleep(400);
    for (int i = 0; i < 3; i++) {
      try (Socket other = open(f)) {
        write(other.getOutputStream(), "GET /next HTTP/1.1\r\nHost: x\r\n\r\n");
        RawHttp.Response r = RawHttp.readResponse(other.getInputStream());
        assertThat(r.status()).as("another client's request %d", i).isEqualTo(200);
        assertThat(r.body()).isEqualTo("fresh");
      }
    }
    TestFairway.assertIdleSoon(f);
    b.close();
  }

  // 3. h2c upgrades are never passed on

  @Test
  void anH2cUpgradeIsNotForwardedAndTheRequestIsServedAsHttp11() throws Exception {
    RecordingBackend b = RecordingBackend.start((head, out) -> {
      if (head.toLowerCase().contains("upgrade: h2c")) {
        write(out, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n");
        return true; // what Hypercorn does: raw HTTP/2 follows
      }
      write(out, OK);
      return true;
    });
    Fairway f = start(b, 10);
    try (Socket s = open(f)) {
      write(s.getOutputStream(), "GET /a HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
          + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n");
      RawHttp.Response r = RawHttp.readResponse(s.getInputStream());
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("fresh");
    }
    String forwarded = b.fullHeads().get(0).toLowerCase();
    assertThat(forwarded).doesNotContain("upgrade").doesNotContain("http2-settings");
    b.close();
  }

  @Test
  void aWebSocketUpgradeListedBesideH2cGoesOnWithoutIt() throws Exception {
    RecordingBackend b = RecordingBackend.start((head, out) -> {
      write(out, OK);
      return true;
    });
    Fairway f = start(b, 10);
    try (Socket s = open(f)) {
      write(s.getOutputStream(), "GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c, websocket\r\n"
          + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
      assertThat(RawHttp.readResponse(s.getInputStream()).status()).isEqualTo(200);
    }
    assertThat(b.fullHeads().get(0)).containsIgnoringCase("upgrade: websocket").doesNotContainIgnoringCase("h2c");
    b.close();
  }

  // 6. switching protocols unasked, interim responses, chunk extensions

  @Test
  void aSwitchNobodyAskedForIsA502AtOnce() throws Exception {
    RecordingBackend b = RecordingBackend.start((head, out) -> {
      write(out, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: anything\r\n\r\n");
      return true;
    });
    Fairway f = start(b, 10);
    long t0 = System.nanoTime();
    try (Socket s = open(f)) {
      write(s.getOutputStream(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      RawHttp.Response r = RawHttp.readResponse(s.getInputStream());
      assertThat(r.status()).isEqualTo(502);
    }
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).as("long before responseMs (5 s)")
        .isLessThan(2000);
    TestFairway.assertIdleSoon(f);
    b.close();
  }

  @Test
  void earlyHintsReachAnHttp11ClientBeforeTheResponseButNoHttp10One() throws Exception {
    RecordingBackend b = RecordingBackend.start((head, out) -> {
      write(out, "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n");
      Thread.sleep(50);
      write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      return true;
    });
    Fairway f = start(b, 10);
    try (Socket s = open(f)) {
      write(s.getOutputStream(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      String hints = RawHttp.readHead(s.getInputStream());
      assertThat(hints).startsWith("HTTP/1.1 103 Early Hints").contains("Link: </s.css>; rel=preload");
      RawHttp.Response r = RawHttp.readResponse(s.getInputStream());
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("ok");
    }
    try (Socket s = open(f)) {
      write(s.getOutputStream(), "GET / HTTP/1.0\r\nHost: x\r\n\r\n");
      RawHttp.Response r = RawHttp.readResponse(s.getInputStream());
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("ok");
    }
    b.close();
  }

  @Test
  void chunkExtensionsAreReadAndDroppedBothWays() throws Exception {
    RecordingBackend b = RecordingBackend.start((head, out) -> {
      write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\n6 ; q=\"a b\"\r\n world\r\n"
          + "0;last\r\n\r\n");
      return true;
    });
    Fairway f = start(b, 10);
    try (Socket s = open(f)) {
      write(s.getOutputStream(), "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;a=b\r\nabc\r\n0\r\n\r\n");
      String got = readUntilQuiet(s);
      assertThat(got).startsWith("HTTP/1.1 200").endsWith("0\r\n\r\n");
      assertThat(dechunk(got.substring(got.indexOf("\r\n\r\n") + 4))).isEqualTo("hello world");
    }
    assertThat(b.wholeBodies()).isEqualTo(1);
    b.close();
  }
}
