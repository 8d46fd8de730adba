package dev.fairway.proxy.exchange;

import dev.fairway.proxy.wire.Failure;
import dev.fairway.proxy.wire.RawResponse;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.function.Consumer;

/**
 * Where an {@code Exchange}'s request comes from and its response goes to: an HTTP/1.1 client
 * connection ({@code ClientConnection}) or one HTTP/2 stream ({@code H2Stream}). The exchange
 * sees the same requests and writes the same responses either way; this is what differs.
 *
 * <p>Example: a backend's {@code 200} with {@code Content-Length: 5} arrives as a
 * {@link RawResponse}; {@link #rawHead} makes it the bytes {@code "HTTP/1.1 200 OK\r\n…"} for a
 * connection and a HEADERS frame with {@code :status 200} for a stream, and the exchange passes
 * whichever it gets to {@link #writeRaw}.
 */
public interface Downstream {
  /** The client's connection (its event loop, its allocator; a tunnel writes to it). */
  Channel channel();

  /** Writes a decoded response part ({@code HttpResponse}, {@code HttpContent}), unflushed. */
  void write(Object msg);

  /** Writes what {@link #rawHead}, {@link #rawBody} or {@link #continueMessage()} made, unflushed. */
  void writeRaw(Object msg);

  /** Sends what was written. */
  void flush();

  /** Whether the client can take more now (its connection's buffer, or the stream's flow-control window). */
  boolean writable();

  /**
   * How many response bytes the client can take now without Fairway holding them: its
   * connection's buffer (for a stream, its share of it) and a stream's flow-control windows; 0 when none.
   */
  default int room() {
    return (int) Math.min(Integer.MAX_VALUE, channel().bytesBeforeUnwritable());
  }

  /** The client's IP address, as text. */
  String remote();

  /** Whether this is an HTTP/2 stream (for the access log's version). */
  boolean multiplexed();

  /** Whether the client connection is TLS ({@code X-Forwarded-Proto: https}). */
  boolean secure();

  /** Bytes were read or sent: the connection is not idle. */
  void touch();

  /** Stops reading the request for {@code reason} (one of the {@link ReadPauses} bits). */
  void pause(int reason);

  /** Reads again once no reason to pause is left. */
  void resume(int reason);

  /** Who to tell when the request's body turns out malformed while being forwarded. */
  void bodyFault(Consumer<Failure> handler);

  /** Forgets {@code handler} if it is still the one to tell. */
  void releaseBodyFault(Consumer<Failure> handler);

  /** The {@code 100 Continue} to send before reading a body the client holds back. */
  Object continueMessage();

  /**
   * The client's response head made from a backend's {@link RawResponse}; reads the fields Fairway
   * acts on ({@link RawResponse#keepAlive()} and the rest are known afterwards).
   *
   * @param http10      the client spoke HTTP/1.0
   * @param closeClient the client's connection closes after this response
   * @param last        the response has no body: the head ends it
   */
  Object rawHead(RawResponse r, boolean http10, boolean closeClient, boolean last);

  /** A part of a {@link RawResponse}'s body, as passed to {@link #writeRaw}. */
  Object rawBody(ByteBuf content, boolean last);

  /**
   * An HTTP/2 backend's response head or trailers, edited into the client's already, as a frame
   * for {@link #writeRaw}; only an HTTP/2 stream ({@link #multiplexed}) is given one.
   *
   * @param last it ends the response
   */
  default Object streamHead(Http2Headers fields, boolean last) {
    throw new IllegalStateException("an HTTP/2 header block for an HTTP/1.1 client");
  }

  /**
   * Answers with Fairway's own status for {@code f} (see {@code ClientConnection.respond}); a gRPC
   * call ({@code grpc}) gets it as a trailers-only response ({@link Failure#grpcResponse}); with
   * {@code X-Request-Id: requestId} unless it is {@code null}.
   *
   * @return whether the connection closes after this answer
   */
  boolean respond(HttpVersion version, boolean keepAlive, Failure f, long waitTimeoutMs, boolean unreadBody,
                  boolean grpc, String requestId);

  /** Cuts the response so that it cannot look complete: a TCP reset, or an HTTP/2 {@code RST_STREAM}. */
  void reset();

  /** The exchange is over; {@code close}: the connection (or stream) must not carry another request. */
  void exchangeDone(Exchange e, boolean close);

  /** The connection takes no further request once the current exchange ends. */
  void closeWhenDone();

  /** From now on the connection carries another protocol, relayed to and from {@code peer}. */
  void tunnelTo(Channel peer);
}
