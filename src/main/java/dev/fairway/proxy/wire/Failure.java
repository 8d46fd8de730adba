package dev.fairway.proxy.wire;

import dev.fairway.grpc.GrpcStatus;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLException;

/**
 * Every status Fairway itself produces, in one place: the status, the one-line reason sent as
 * the body, whether a {@code Retry-After} goes with it, whether the connection is closed, and
 * the {@code grpc-status} a gRPC call gets instead (gRPC's HTTP-to-status mapping: 502, 503 and
 * 504 are 14 UNAVAILABLE, except that Fairway's timeouts are 4 DEADLINE_EXCEEDED; 400 is
 * 13 INTERNAL; no route is 12 UNIMPLEMENTED).
 *
 * <p>Example: {@code SLOT_TIMEOUT} is {@code 503 "no free slot within the wait timeout"} with
 * {@code Retry-After}; {@code MALFORMED_REQUEST} is 400 and closes the connection; a backend
 * connection whose TLS handshake fails is {@code BACKEND_TLS}, 502.
 */
public enum Failure {
  NO_ROUTE(404, "no service matches this host and path", false, false, GrpcStatus.UNIMPLEMENTED),
  NO_BACKEND(503, "no healthy backend available", true, false, GrpcStatus.UNAVAILABLE),
  SLOT_TIMEOUT(503, "no free slot within the wait timeout", true, false, GrpcStatus.UNAVAILABLE),
  QUEUE_FULL(503, "too many requests waiting for a free slot", true, false, GrpcStatus.UNAVAILABLE),
  /** Adaptive throttling refused it locally: the service's backends have been refusing requests. */
  THROTTLED(503, "throttled: the service's backends are refusing requests", true, false, GrpcStatus.UNAVAILABLE),
  /** A waiting request refused to make room for a more critical one ({@code maxWaiting} were waiting). */
  SHED(503, "shed: the queue is full and a more critical request needed the place", true, false,
      GrpcStatus.UNAVAILABLE),
  CONNECT_FAILED(503, "could not connect to a backend", true, false, GrpcStatus.UNAVAILABLE),
  /** The backend's TLS handshake failed (untrusted or misnamed certificate, client certificate refused, ...). */
  BACKEND_TLS(502, "TLS handshake with the backend failed", false, false, GrpcStatus.UNAVAILABLE),
  RESPONSE_TIMEOUT(504, "backend sent no response in time", false, false, GrpcStatus.DEADLINE_EXCEEDED),
  /** The request's own deadline ({@code grpc-timeout}) passed before a backend answered. */
  DEADLINE_EXCEEDED(504, "deadline exceeded before a backend answered", false, false, GrpcStatus.DEADLINE_EXCEEDED),
  /** What was left of the deadline was less than the backends' usual answer time: not sent. */
  DEADLINE_UNMEETABLE(504, "deadline too short for the backends' usual answer time", false, false,
      GrpcStatus.DEADLINE_EXCEEDED),
  BAD_RESPONSE(502, "backend sent an empty, invalid or truncated response", false, false, GrpcStatus.UNAVAILABLE),
  MALFORMED_REQUEST(400, "malformed or ambiguous request", false, true, GrpcStatus.INTERNAL),
  /** A {@code grpc-timeout} that is not 1-8 digits and a unit (gRPC servers answer it with INTERNAL). */
  MALFORMED_TIMEOUT(400, "malformed grpc-timeout", false, false, GrpcStatus.INTERNAL),
  /** A deadline field ({@code X-Request-Timeout-Ms}) that is not a number of milliseconds. */
  MALFORMED_DEADLINE(400, "malformed deadline field; expected milliseconds", false, false, GrpcStatus.INVALID_ARGUMENT),
  HEADERS_TOO_LARGE(431, "request headers too large", false, true, GrpcStatus.INTERNAL),
  URI_TOO_LONG(414, "request line too long", false, true, GrpcStatus.INTERNAL),
  REQUEST_TIMEOUT(408, "request headers not complete in time", false, true, GrpcStatus.DEADLINE_EXCEEDED),
  DRAINING(503, "proxy is shutting down", true, true, GrpcStatus.UNAVAILABLE),
  TOO_MANY_CONNECTIONS(503, "too many client connections", true, true, GrpcStatus.UNAVAILABLE),
  UNDERSCORE_HEADER(400, "header field name contains an underscore", false, true, GrpcStatus.INVALID_ARGUMENT),
  UPLOAD_STALLED(504, "backend stopped reading the request body", false, false, GrpcStatus.UNAVAILABLE),
  /** An {@code Upgrade} (WebSocket) request routed to an {@code h2c://} backend: HTTP/2 has no {@code Upgrade}. */
  UPGRADE_TO_H2(502, "the backend speaks HTTP/2, which cannot switch protocols", false, false, GrpcStatus.UNAVAILABLE);

  /** The header gRPC clients (grpc-java) read as "retry after this many milliseconds". */
  public static final String GRPC_PUSHBACK = "grpc-retry-pushback-ms";

  private final int status;
  private final String reason;
  private final boolean retryAfter;
  private final boolean closeConnection;
  private final int grpcStatus;

  Failure(int status, String reason, boolean retryAfter, boolean closeConnection, int grpcStatus) {
    this.status = status;
    this.reason = reason;
    this.retryAfter = retryAfter;
    this.closeConnection = closeConnection;
    this.grpcStatus = grpcStatus;
  }

  /**
   * The failure for a request the HTTP decoder (or {@link FramingGuard}) refused: the guard's own
   * {@link Rejection}, else 414 for a too long request line, 431 for too large headers, 400 for
   * anything else.
   */
  public static Failure of(Throwable decoderFailure) {
    if (decoderFailure instanceof Rejection r) {
      return r.failure();
    }
    if (decoderFailure instanceof io.netty.handler.codec.http.TooLongHttpLineException) {
      return URI_TOO_LONG;
    }
    if (decoderFailure instanceof io.netty.handler.codec.http.TooLongHttpHeaderException) {
      return HEADERS_TOO_LARGE;
    }
    return MALFORMED_REQUEST;
  }

  /**
   * The failure for a backend connection that could not be made: {@link #BACKEND_TLS} if TLS
   * failed (the cause is, or wraps, an {@link SSLException}), else {@link #CONNECT_FAILED}.
   */
  public static Failure ofConnect(Throwable cause) {
    return tlsCause(cause) == null ? CONNECT_FAILED : BACKEND_TLS;
  }

  /**
   * The failure for a backend connection lost before the response head: {@link #BACKEND_TLS} if
   * TLS failed (a TLS 1.3 backend refuses a client certificate only after the handshake), else
   * {@link #BAD_RESPONSE}.
   */
  public static Failure ofLostConnection(Throwable cause) {
    return tlsCause(cause) == null ? BAD_RESPONSE : BACKEND_TLS;
  }

  /**
   * The reason for the access log: {@link #reason()}, and for a failed connection what went wrong,
   * e.g. {@code TLS handshake with the backend failed: PKIX path building failed: ...}.
   *
   * @param connectFailure why the last backend connection failed, or {@code null}
   */
  public String reason(Throwable connectFailure) {
    if (connectFailure == null || (this != CONNECT_FAILED && this != BACKEND_TLS)) {
      return reason;
    }
    Throwable tls = tlsCause(connectFailure);
    Throwable why = rootWithMessage(tls != null ? tls : connectFailure);
    String text = why.getMessage() == null ? why.getClass().getSimpleName() : why.getMessage();
    return reason + ": " + text;
  }

  /**
   * The deepest cause that has a message: OpenSSL wraps a refused certificate as "General
   * OpenSslEngine problem" around the trust manager's "unable to find valid certification path".
   */
  private static final int MAX_CAUSES = 8;

  private static Throwable rootWithMessage(Throwable t) {
    Throwable why = t;
    Throwable c = t.getCause();
    for (int depth = 0; c != null && depth < MAX_CAUSES; depth++, c = c.getCause()) {
      if (c.getMessage() != null) {
        why = c;
      }
    }
    return why;
  }

  private static Throwable tlsCause(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof SSLException) {
        return c;
      }
    }
    return null;
  }

  /**
   * Fairway's answer: the status, the reason as one plain-text line, and {@code Retry-After}
   * (the wait timeout in whole seconds, at least 1) when the failure asks the client to retry.
   */
  public FullHttpResponse response(HttpVersion version, long waitTimeoutMs) {
    return response(version, waitTimeoutMs, null);
  }

  /** {@link #response(HttpVersion, long)} with {@code X-Request-Id: requestId} ({@code null}: none). */
  public FullHttpResponse response(HttpVersion version, long waitTimeoutMs, String requestId) {
    byte[] body = (reason + "\n").getBytes(StandardCharsets.UTF_8);
    FullHttpResponse resp = new DefaultFullHttpResponse(version, HttpResponseStatus.valueOf(status),
        Unpooled.wrappedBuffer(body));
    resp.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    if (retryAfter) {
      resp.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(retryAfterSeconds(waitTimeoutMs)));
    }
    return withId(resp, requestId);
  }

  /**
   * Fairway's answer to a gRPC call: trailers-only, that is {@code 200} with
   * {@code content-type: application/grpc}, {@link #grpcStatus()}, the reason as
   * {@code grpc-message} and no body (over HTTP/2, one HEADERS frame that ends the stream). When
   * the failure asks the client to retry, {@code Retry-After} and {@value #GRPC_PUSHBACK} (the same
   * wait in milliseconds) go with it.
   *
   * <p>Example: {@code SLOT_TIMEOUT} with {@code waitTimeoutMs} 300 is {@code 200}, {@code grpc-status:
   * 14}, {@code grpc-message: no free slot within the wait timeout}, {@code retry-after: 1},
   * {@code grpc-retry-pushback-ms: 1000}.
   */
  public FullHttpResponse grpcResponse(HttpVersion version, long waitTimeoutMs) {
    return grpcResponse(version, waitTimeoutMs, null);
  }

  /** {@link #grpcResponse(HttpVersion, long)} with {@code x-request-id: requestId} metadata ({@code null}: none). */
  public FullHttpResponse grpcResponse(HttpVersion version, long waitTimeoutMs, String requestId) {
    FullHttpResponse resp = new DefaultFullHttpResponse(version, HttpResponseStatus.OK, Unpooled.EMPTY_BUFFER);
    resp.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/grpc")
        .setInt("grpc-status", grpcStatus)
        .set("grpc-message", GrpcStatus.percentEncode(reason))
        .setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
    if (retryAfter) {
      long seconds = retryAfterSeconds(waitTimeoutMs);
      resp.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(seconds)).set(GRPC_PUSHBACK, Long.toString(seconds * 1000));
    }
    return withId(resp, requestId);
  }

  private static FullHttpResponse withId(FullHttpResponse resp, String requestId) {
    if (requestId != null) {
      resp.headers().set(RequestId.HEADER, requestId);
    }
    return resp;
  }

  /** {@code Retry-After}: the wait timeout in whole seconds, at least 1. */
  private static long retryAfterSeconds(long waitTimeoutMs) {
    return Math.max(1, (waitTimeoutMs + 999) / 1000);
  }

  /**
   * {@link #response(HttpVersion, long)} (or {@link #grpcResponse} for a gRPC call) for an
   * HTTP/1.x connection: with {@code Connection: close} when it closes after the answer,
   * {@code Connection: keep-alive} for an HTTP/1.0 one kept open.
   */
  public FullHttpResponse response(HttpVersion version, long waitTimeoutMs, boolean close, boolean grpc, String requestId) {
    FullHttpResponse resp = grpc ? grpcResponse(version, waitTimeoutMs, requestId) : response(version, waitTimeoutMs, requestId);
    if (close) {
      resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    } else if (version == HttpVersion.HTTP_1_0) {
      resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    }
    return resp;
  }

  public int status() {
    return status;
  }

  /** The plain-text body line (without the newline). */
  public String reason() {
    return reason;
  }

  public boolean retryAfter() {
    return retryAfter;
  }

  public boolean closeConnection() {
    return closeConnection;
  }

  /** The {@code grpc-status} a gRPC call gets instead of {@link #status()}. */
  public int grpcStatus() {
    return grpcStatus;
  }
}
