package dev.fairway.proxy.exchange;

import dev.fairway.config.RetrySettings;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;

/**
 * When a request whose backend connection died may be sent again, once, to another backend on a
 * new connection: an HTTP/2 stream the backend did not process ({@link #unprocessedStream}); else only if the connection was a pooled keep-alive one that the backend had closed
 * while idle (closed or reset before any response, and not by Fairway's own timeouts), and only
 * for a bodiless request with an idempotent method (RFC 9110 §9.2.2).
 *
 * <p>Example: {@code GET /} on a reused connection that the backend reset is
 * {@code staleConnection(true, new IOException("reset"), false, false, false, GET)} = true;
 * the same on a new connection, or a {@code POST}, or after a {@code 103} head, is false.
 */
final class RetryPolicy {
  private RetryPolicy() {
  }

  /**
   * @param reused        the connection carried a request before this one
   * @param cause         why it closed, if it said; {@code null} if it just closed
   * @param timedOut      Fairway closed it: no response in time, or the upload stalled
   * @param interimSeen   the backend had sent a 1xx head
   * @param hasBody       the request has a body (it cannot be read again)
   */
  static boolean staleConnection(boolean reused, Throwable cause, boolean timedOut, boolean interimSeen,
                                 boolean hasBody, HttpMethod method) {
    return reused && !timedOut && !interimSeen && (cause == null || cause instanceof IOException) && !hasBody
        && idempotent(method);
  }

  /**
   * Whether a request on an HTTP/2 stream that the backend provably did not process (it refused
   * the stream, or the stream is above its GOAWAY's last stream id) may go to another backend:
   * whatever its method (RFC 9113 §8.7), if Fairway did not give up on it and kept its body.
   *
   * <p>Example: a gRPC {@code POST} refused with {@code REFUSED_STREAM} is
   * {@code unprocessedStream(true, false, false, true)} = true; a stream reset with
   * {@code CANCEL} (not provably unprocessed) is false.
   */
  static boolean unprocessedStream(boolean unprocessed, boolean timedOut, boolean interimSeen, boolean bodyReplayable) {
    return unprocessed && !timedOut && !interimSeen && bodyReplayable;
  }

  static boolean idempotent(HttpMethod m) {
    return m == HttpMethod.GET || RetrySettings.IDEMPOTENT.contains(m.name());
  }
}
