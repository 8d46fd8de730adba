package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;

/**
 * How {@link FrameCodecs} shares a connection among streams: whole DATA frames in turn, and
 * priorities ignored.
 *
 * <p>A client opens streams 1 and 3, the second made an exclusive dependant of the first with the
 * highest weight (RFC 9113 §5.3, deprecated), and gives the connection a window of 64 KiB. The
 * server answers both with 64 KiB at once: each stream gets a turn of 32 KiB, two whole frames.
 * Then the client opens the window by one frame's worth at a time, and the streams take a whole
 * 16 KiB frame each in turn. A weighted fair queue over the priority tree (Netty's default) sends
 * all of stream 1 first; without the 16 KiB turn, a 16 KiB window is cut in two 8 KiB frames.
 * The socket's buffer is made large, so that the connection's window alone sets what may be sent.
 */
class FrameCodecsTest {
  private static final int BODY = 64 * 1024;
  private static final int FRAME = 16 * 1024;
  private static final byte HEADERS = 0x1;
  private static final byte SETTINGS = 0x4;
  private static final byte WINDOW_UPDATE = 0x8;
  private static final byte DATA = 0x0;
  private static final byte END_STREAM_AND_HEADERS = 0x1 | 0x4;
  private static final byte PRIORITY_FLAG = 0x20;

  @Test
  void streamsTakeTurnsOfWholeFramesWhateverTheirPriority() throws Exception {
    EmbeddedChannel server = new EmbeddedChannel(FrameCodecs.forServer().build(), new AnswerBoth());
    server.config().setWriteBufferWaterMark(new WriteBufferWaterMark(4 << 20, 8 << 20));
    ByteBuf in = Unpooled.buffer();
    in.writeBytes(Http2CodecUtil.connectionPrefaceBuf());
    frame(in, SETTINGS, (byte) 0, 0, Unpooled.buffer().writeShort(0x4).writeInt(1 << 20)); // INITIAL_WINDOW_SIZE 1 MiB
    windowUpdate(in, 1); // the connection's window: 65,535 + 1 = 64 KiB
    frame(in, HEADERS, END_STREAM_AND_HEADERS, 1, request(1));
    ByteBuf dependant = Unpooled.buffer().writeInt(0x8000_0000 | 1).writeByte(255); // exclusive on 1, weight 256
    frame(in, HEADERS, (byte) (END_STREAM_AND_HEADERS | PRIORITY_FLAG), 3, dependant.writeBytes(request(3)));
    server.writeInbound(in);
    server.runPendingTasks();
    assertThat(dataFrames(server)).isEqualTo("1:16384 1:16384 3:16384 3:16384");

    StringJoiner oneFrameAtATime = new StringJoiner(" ");
    for (int i = 0; i < 4; i++) {
      server.writeInbound(windowUpdate(Unpooled.buffer(), FRAME));
      oneFrameAtATime.add(dataFrames(server));
    }
    assertThat(oneFrameAtATime.toString()).isEqualTo("1:16384 3:16384 1:16384 3:16384");
    server.finishAndReleaseAll();
  }

  /** Holds the first request's stream until the second arrives, then answers both and flushes once. */
  private static final class AnswerBoth extends ChannelInboundHandlerAdapter {
    private final List<Http2HeadersFrame> requests = new ArrayList<>();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Http2HeadersFrame h) {
        requests.add(h);
      }
      ReferenceCountUtil.release(msg);
      if (requests.size() == 2) {
        for (Http2HeadersFrame r : requests) {
          ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")).stream(r.stream()));
          ctx.write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(new byte[BODY]), true).stream(r.stream()));
        }
        requests.clear();
        ctx.flush();
      }
    }
  }

  private static ByteBuf request(int stream) throws Exception {
    ByteBuf block = Unpooled.buffer();
    new DefaultHttp2HeadersEncoder().encodeHeaders(stream, new DefaultHttp2Headers().method("GET").scheme("http")
        .authority("a").path("/" + stream), block);
    return block;
  }

  private static ByteBuf windowUpdate(ByteBuf out, int increment) {
    frame(out, WINDOW_UPDATE, (byte) 0, 0, Unpooled.buffer().writeInt(increment));
    return out;
  }

  private static void frame(ByteBuf out, byte type, byte flags, int stream, ByteBuf payload) {
    out.writeMedium(payload.readableBytes()).writeByte(type).writeByte(flags).writeInt(stream).writeBytes(payload);
    payload.release();
  }

  /** The server's DATA frames in the order written, as {@code stream:length}. */
  private static String dataFrames(EmbeddedChannel server) {
    ByteBuf out = Unpooled.buffer();
    for (ByteBuf b; (b = server.readOutbound()) != null; ) {
      out.writeBytes(b);
      b.release();
    }
    StringJoiner frames = new StringJoiner(" ");
    while (out.readableBytes() >= 9) {
      int length = out.readUnsignedMedium();
      byte type = out.readByte();
      out.skipBytes(1);
      int stream = out.readInt() & 0x7fff_ffff;
      out.skipBytes(length);
      if (type == DATA && length > 0) {
        frames.add(stream + ":" + length);
      }
    }
    assertThat(out.readableBytes()).as("trailing bytes %s", out.toString(StandardCharsets.ISO_8859_1)).isZero();
    out.release();
    return frames.toString();
  }
}
