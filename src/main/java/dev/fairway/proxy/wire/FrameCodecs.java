package dev.fairway.proxy.wire;

import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.DefaultHttp2RemoteFlowController;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.WeightedFairQueueByteDistributor;

/**
 * Netty's HTTP/2 frame codec whose streams share a connection a whole DATA frame at a time.
 *
 * <p>Example: ten streams each have 64 KiB queued and the socket takes 48 KiB. Netty's default
 * shares those 48 KiB out 1 KiB at a time, round robin: 48 DATA frames of 1 KiB, each its own
 * header, buffer slice and entry in the socket's queue. Here each stream in turn gets a frame of
 * up to 16 KiB (the default maximum frame size): three frames, as fair over a response and far
 * cheaper to write.
 */
public final class FrameCodecs extends Http2FrameCodecBuilder {
  /** A stream's turn: one DATA frame of the default maximum frame size (RFC 9113 §4.2). */
  static final int QUANTUM = 16 * 1024;

  private FrameCodecs(boolean server) {
    DefaultHttp2Connection connection = new DefaultHttp2Connection(server, maxReservedStreams());
    WeightedFairQueueByteDistributor turns = new WeightedFairQueueByteDistributor(connection);
    turns.allocationQuantum(QUANTUM);
    connection.remote().flowController(new DefaultHttp2RemoteFlowController(connection, turns));
    connection(connection); // instead of server(…), which Netty allows only without a connection
    gracefulShutdownTimeoutMillis(0);
    if (!server) { // the builder takes itself for a server's: a client's limits on resets are none, as forClient()'s
      decoderEnforceMaxRstFramesPerWindow(0, 0);
      encoderEnforceMaxRstFramesPerWindow(0, 0);
    }
  }

  /** A codec builder for the client side of Fairway (its listeners). */
  public static Http2FrameCodecBuilder forServer() {
    return new FrameCodecs(true);
  }

  /** A codec builder for Fairway's connections to backends. */
  public static Http2FrameCodecBuilder forClient() {
    return new FrameCodecs(false);
  }
}
