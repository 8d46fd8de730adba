package dev.fairway.proxy.wire;

import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.DefaultHttp2RemoteFlowController;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.UniformStreamByteDistributor;

/**
 * Netty's HTTP/2 frame codec whose streams share a connection a whole DATA frame at a time, in
 * turn, without priorities, and whose header compression keeps values new on every message out
 * of its table ({@link ChangingFields}).
 *
 * <p>Example: ten streams each have 64 KiB queued and the socket takes 48 KiB. Netty's default
 * shares those 48 KiB out 1 KiB at a time: 48 DATA frames of 1 KiB, each its own header, buffer
 * slice and entry in the socket's queue. Here each stream in turn gets a frame of up to 16 KiB
 * (the default maximum frame size): three frames, as fair over a response and far cheaper to
 * write.
 *
 * <p>Streams take turns in the order they have data ({@link UniformStreamByteDistributor}); a
 * peer's PRIORITY frames and HEADERS priorities are accepted and ignored, as RFC 9113 §5.3.2
 * allows now that the scheme is deprecated. Netty's default, a weighted fair queue over the
 * priority tree, keeps a tree node and a priority queue per stream: allocation and work on every
 * request that a proxy, which does not order its streams, never uses.
 */
public final class FrameCodecs extends Http2FrameCodecBuilder {
  /** A stream's turn: one DATA frame of the default maximum frame size (RFC 9113 §4.2). */
  static final int QUANTUM = 16 * 1024;

  private FrameCodecs(boolean server) {
    DefaultHttp2Connection connection = new DefaultHttp2Connection(server, maxReservedStreams());
    UniformStreamByteDistributor turns = new UniformStreamByteDistributor(connection);
    turns.minAllocationChunk(QUANTUM);
    connection.remote().flowController(new DefaultHttp2RemoteFlowController(connection, turns));
    connection(connection); // instead of server(…), which Netty allows only without a connection
    gracefulShutdownTimeoutMillis(0);
    headerSensitivityDetector(new ChangingFields());
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
