package dev.fairway.proxy.wire;

/**
 * An HTTP/2 stream to a backend as a request's head sees it ({@link ClientRequest#writeToStream}):
 * it takes HEADERS frames (without their stream, which it sets) and Netty's {@code HttpRequest}
 * and {@code HttpContent}, and turns them into its frames.
 *
 * <p>Example: a bodiless request writes one {@code Http2HeadersFrame} that ends the stream and
 * flushes it, with {@code :scheme https} when {@link #secure} (an {@code https://} backend).
 */
public interface StreamWriter {
  /** Writes a HEADERS frame or one of Netty's HTTP objects, unflushed. */
  void write(Object msg);

  /** Sends what was written. */
  void flush();

  /** Whether the stream's connection is TLS: its requests say {@code :scheme https}. */
  boolean secure();
}
