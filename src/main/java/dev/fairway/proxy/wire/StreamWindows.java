package dev.fairway.proxy.wire;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * Gives a peer back the flow-control window its DATA took, on a connection with Netty's frame
 * codec: straight to the codec's flow controller (no WINDOW_UPDATE frame object, promise or
 * handler walk per DATA frame), which writes a WINDOW_UPDATE, unflushed, once half a window is due.
 *
 * <p>Example: a stream with a 1 MiB window reads 16 KiB frames; each is given back as it is read,
 * and every 32nd (512 KiB) makes the codec write a WINDOW_UPDATE of 512 KiB: {@link #giveBack}
 * says so, and the caller flushes.
 */
public final class StreamWindows {
  private StreamWindows() {
  }

  /**
   * Gives back {@code bytes} of stream {@code s}'s window and its connection's; nothing for a
   * stream already closed ({@code null} or closed: the codec gave its bytes back then). More than
   * was received means both sides' accounts differ: the connection ({@code ctx}) closes.
   *
   * @return whether a WINDOW_UPDATE was written (and waits for a flush)
   */
  public static boolean giveBack(Http2FrameCodec codec, ChannelHandlerContext ctx, Http2Stream s, int bytes) {
    if (bytes <= 0 || s == null) {
      return false;
    }
    try {
      return codec.connection().local().flowController().consumeBytes(s, bytes);
    } catch (Http2Exception e) {
      ctx.close();
      return false;
    }
  }
}
