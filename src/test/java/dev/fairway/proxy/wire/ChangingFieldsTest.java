package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link ChangingFields}: which values a connection's HPACK encoder keeps out of its table, and
 * what that does to the header bytes of 200 requests with a new request id each.
 */
class ChangingFieldsTest {
  private static final int HEADERS = 0x1;

  /** "Y": never indexed; "n": left to the encoder. The first value of each changing field names it in the table. */
  @Test
  void theFirstValueOfAChangingFieldIsIndexedTheOthersNever() {
    ChangingFields d = new ChangingFields();
    assertThat(Stream.of("x-request-id", "x-request-id", "X-Request-Id", "via", "grpc-timeout", "grpc-timeout",
            "traceparent", "traceparent", "tracestate", "x-request-ids", "forwarded")
        .map(n -> d.isSensitive(n, "v") ? "Y" : "n").collect(Collectors.joining(" ")))
        .isEqualTo("n Y Y n n Y n Y n n n");
  }

  @Test
  void aChangingFieldIsIndexedAgainEverySixtyFourValues() {
    ChangingFields d = new ChangingFields();
    List<Integer> indexed = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      if (!d.isSensitive("x-request-id", "v" + i)) {
        indexed.add(i);
      }
    }
    assertThat(indexed).containsExactly(0, 64, 128, 192);
  }

  /**
   * Netty's default adds each new id to the table, and every few dozen requests the ids have pushed
   * the repeating fields out, to be sent in full again; here they stay indexed, and each id is named
   * by its table entry, so the 200 requests take fewer bytes, and every HEADERS frame after the
   * first has one size (the refreshes included: a literal indexed or not names the field alike).
   * Were every id a never-indexed literal naming its field in full, they would take more bytes than
   * Netty's default.
   */
  @Test
  void repeatingFieldsStayIndexedAndTheIdsTakeNoMoreBytes() {
    List<Integer> ours = headersFrameSizes(FrameCodecs.forClient().build(), 200);
    List<Integer> netty = headersFrameSizes(Http2FrameCodecBuilder.forClient().build(), 200);
    assertThat(ours).hasSize(200);
    int size = ours.get(1);
    assertThat(ours.subList(1, 200)).allSatisfy(n -> assertThat(n).isBetween(size - 1, size));
    assertThat(size).isLessThan(ours.get(0) / 2);
    assertThat(netty.subList(1, 200).stream().distinct().count()).as("the default's table churns").isGreaterThan(1);
    assertThat(sum(ours)).isLessThan(sum(netty));
    assertThat(List.of(sum(ours), sum(netty))).as("header-block bytes, ours and Netty's (docs/benchmarks.md)")
        .containsExactly(9_217, 9_857);
  }

  private static int sum(List<Integer> sizes) {
    return sizes.stream().mapToInt(Integer::intValue).sum();
  }

  private static List<Integer> headersFrameSizes(Http2FrameCodec codec, int requests) {
    EmbeddedChannel ch = new EmbeddedChannel(codec, new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
    drain(ch).release(); // the preface and SETTINGS
    List<Integer> sizes = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      Http2Headers h = new DefaultHttp2Headers().method("POST").path("/grpc.testing.SimpleService/Unary")
          .scheme("http").authority("shop.example:8080");
      h.add("content-type", "application/grpc");
      h.add("user-agent", "grpc-java-netty/1.68.1");
      h.add("te", "trailers");
      h.add("forwarded", "for=\"127.0.0.1:40000\";proto=http;host=\"shop.example:8080\"");
      h.add("x-forwarded-for", "127.0.0.1");
      h.add("via", "2 fairway");
      h.add("x-request-id", String.format("%032x", 0x9e3779b97f4a7c15L * (i + 1)));
      Http2StreamChannel stream = new Http2StreamChannelBootstrap(ch).handler(new ChannelInboundHandlerAdapter())
          .open().syncUninterruptibly().getNow();
      stream.writeAndFlush(new DefaultHttp2HeadersFrame(h, true));
      ch.runPendingTasks();
      ByteBuf out = drain(ch);
      while (out.readableBytes() >= 9) {
        int length = out.readUnsignedMedium();
        int type = out.readUnsignedByte();
        out.skipBytes(5 + length); // flags, stream id, payload
        if (type == HEADERS) {
          sizes.add(length);
        }
      }
      out.release();
    }
    ch.finishAndReleaseAll();
    return sizes;
  }

  private static ByteBuf drain(EmbeddedChannel ch) {
    ByteBuf all = Unpooled.buffer();
    for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
      all.writeBytes(b);
      b.release();
    }
    return all;
  }
}
