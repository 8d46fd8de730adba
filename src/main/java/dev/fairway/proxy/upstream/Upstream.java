package dev.fairway.proxy.upstream;

import dev.fairway.proxy.wire.ClientRequest;
import io.netty.channel.Channel;

/**
 * What an exchange holds while its request is at a backend: an HTTP/1.1 connection
 * ({@link BackendConnection}, pooled between exchanges) or one HTTP/2 stream of a shared
 * connection ({@link BackendStream}, one exchange and never pooled). The exchange writes the
 * request through it and hears the response as an {@link UpstreamUser}.
 *
 * <p>Example: an exchange {@link #attach}es itself, sends the head ({@link #sendHead}) and the
 * body parts ({@link #write}, {@link #flush}), stops reading ({@link #autoRead} false) while its
 * client cannot take more, and at the response's end {@link #detach}es and gives the connection
 * back to its pool if {@link #poolable}, else {@link #close}s it (for a stream: resets it unless
 * both sides ended).
 */
public interface Upstream {
  /** Whether this is an HTTP/2 stream (one request, never pooled) rather than an HTTP/1.1 connection. */
  boolean multiplexed();

  /** Whether the next response answers a {@code HEAD} request (an HTTP/1.1 connection's framing needs it). */
  void expectResponseTo(boolean headRequest);

  /** Whether it may go back to the pool after a response; never a stream. */
  boolean poolable();

  /** Whether this connection carried a request before the current one (a pooled keep-alive one). */
  boolean reused();

  /**
   * Whether this HTTP/2 stream was provably not processed by the backend (it refused the stream,
   * or the stream is above its GOAWAY's last stream id): a retry elsewhere is safe (RFC 9113 §8.7).
   */
  boolean unprocessed();

  /** Why it failed, if it said; {@code null} if not. */
  Throwable cause();

  /** Gives up on it for {@code why} (a malformed response, say): it closes. */
  void fail(Throwable why);

  /** Serves {@code e} from now on; {@code toStream}: the response goes to a client's HTTP/2 stream. */
  void attach(UpstreamUser e, boolean toStream);

  /** Serves no exchange any more. */
  void detach();

  /** Writes the request's head (and flushes it); {@code true} if that was the whole request. */
  boolean sendHead(ClientRequest request);

  /** Writes a part of the request's body (or its end), unflushed. */
  void write(Object msg);

  /** Sends what was written. */
  void flush();

  /** Whether it can take more of the request now. */
  boolean writable();

  /** Reads the backend on, or stops (until switched on again) while the client cannot take more. */
  void autoRead(boolean on);

  /** Closes the connection, or resets the stream unless both sides ended; the exchange hears {@link UpstreamUser#upstreamClosed}. */
  void close();

  /** An HTTP/1.1 connection's channel (a tunnel after {@code 101} takes it over); {@code null} for a stream. */
  Channel socket();
}
