package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.EdgeLimits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The guard on a Netty {@link EmbeddedChannel}: whatever way the bytes of valid messages are cut
 * into reads, exactly those bytes come out, in order (heads passed in place or copied, bodies
 * sliced, a bodiless request's head as a {@link RawRequest}); an invalid head never comes out.
 */
class FramingGuardTest {
  private static final String TWO_REQUESTS = "\r\nPOST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"
      + "GET /next HTTP/1.1\r\nHost: a\r\nX-Long: " + "v".repeat(3000) + "\r\n\r\n";
  private static final String PASSED = TWO_REQUESTS.substring(2); // the empty line before a request is dropped

  /** Feeds {@code input} to a request guard in reads of the given sizes; returns what came out. */
  private static String throughRequestGuard(String input, int... cuts) {
    EmbeddedChannel ch = new EmbeddedChannel(FramingGuard.forRequests(EdgeLimits.DEFAULTS));
    byte[] bytes = input.getBytes(StandardCharsets.ISO_8859_1);
    int from = 0;
    for (int cut : cuts) {
      ch.writeInbound(Unpooled.wrappedBuffer(bytes, from, cut - from));
      from = cut;
    }
    ch.writeInbound(Unpooled.wrappedBuffer(bytes, from, bytes.length - from));
    StringBuilder out = new StringBuilder();
    for (Object m = ch.readInbound(); m != null; m = ch.readInbound()) {
      if (m instanceof ByteBuf b) {
        out.append(b.toString(StandardCharsets.ISO_8859_1));
        b.release();
      } else if (m instanceof RawRequest r) {
        out.append(new String(r.bytes(), StandardCharsets.ISO_8859_1));
      } else {
        out.append("<").append(((HttpRequest) m).decoderResult()).append(">");
      }
    }
    ch.finishAndReleaseAll();
    return out.toString();
  }

  @Test
  void passesTwoPipelinedRequestsUnchangedInOneRead() {
    assertThat(throughRequestGuard(TWO_REQUESTS)).isEqualTo(PASSED);
  }

  @Test
  void passesThemUnchangedWhereverOneCutFalls() {
    for (int cut = 1; cut < TWO_REQUESTS.length(); cut++) {
      assertThat(throughRequestGuard(TWO_REQUESTS, cut)).as("cut at %d", cut).isEqualTo(PASSED);
    }
  }

  @Test
  void passesThemUnchangedByteByByteAndInBlocksAcrossTheLongHeader() {
    int[] everyByte = new int[TWO_REQUESTS.length() - 1];
    for (int i = 0; i < everyByte.length; i++) {
      everyByte[i] = i + 1;
    }
    assertThat(throughRequestGuard(TWO_REQUESTS, everyByte)).isEqualTo(PASSED);
    assertThat(throughRequestGuard(TWO_REQUESTS, 100, 1500, 2100, 3000)).isEqualTo(PASSED);
  }

  @Test
  void anInvalidSecondHeadNeverComesOutWhateverTheCut() {
    String bad = "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost : a\r\n\r\n";
    String first = "GET /a HTTP/1.1\r\nHost: a\r\n\r\n";
    assertThat(throughRequestGuard(bad)).startsWith(first).doesNotContain("/b").contains("failure");
    assertThat(throughRequestGuard(bad, first.length() + 20)).startsWith(first).doesNotContain("/b").contains("failure");
  }
}
