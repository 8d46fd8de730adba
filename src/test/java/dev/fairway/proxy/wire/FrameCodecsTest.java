package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The codecs' header compression: fields new on every request stay out of the HPACK table. */
class FrameCodecsTest {
  private static final int HEADERS = 0x1;

  @Test
  void fieldsNewOnEveryRequestAreTheOnesNeverIndexed() {
    assertThat(List.of("x-request-id", "X-Request-Id", "grpc-timeout", "traceparent", "x-request-ids", "via",
            "tracestate", "forwarded").stream().map(n -> FrameCodecs.UNIQUE_PER_REQUEST.isSensitive(n, "v") ? "Y" : "n"))
        .containsExactly("Y", "Y", "Y", "Y", "n", "n", "n", "n");
  }

  /**
   * 200 requests on one backend connection, each with a new request id: after the first two, every
   * HEADERS frame has the same size, since the repeating fields stay indexed. Were each id added to
   * the table, it would push those fields out about every 40 requests, to be sent in full again.
   */
  @Test
  void repeatingFieldsStayIndexedBetweenUniqueRequestIds() {
    List<Integer> sizes = headersFrameSizes(FrameCodecs.forClient().build(), 200);
    assertThat(sizes).hasSize(200);
    assertThat(sizes.subList(2, 200)).containsOnly(sizes.get(2));
    assertThat(sizes.get(2)).isLessThan(sizes.get(0) / 2);
  }

  private static List<Integer> headersFrameSizes(Http2FrameCodec codec, int requests) {
    EmbeddedChannel ch = new EmbeddedChannel(codec, new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
    drain(ch); // the preface and SETTINGS
    List<Integer> sizes = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      Http2Headers h = new DefaultHttp2Headers().method("GET").path("/orders/7").scheme("http")
          .authority("shop.example:8080");
      h.add("user-agent", "grpc-java-netty/1.85.1");
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
        out.skipBytes(5 + length);
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
