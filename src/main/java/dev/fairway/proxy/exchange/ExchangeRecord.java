package dev.fairway.proxy.exchange;

import dev.fairway.accesslog.AccessLog;
import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.Outcome;
import dev.fairway.metrics.HttpMeters;
import dev.fairway.proxy.wire.ClientRequest;
import dev.fairway.slots.Waiter;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;

/**
 * What an exchange leaves behind: the backend's record in the slot table and the tally (once,
 * when its slot goes back), Vert.x's HTTP meters towards the client and the backend, and one
 * access-log line.
 *
 * <p>Example: {@code GET /} served by b1 in 3 ms with a {@code 200} of 12 bytes releases b1's
 * slot with a latency of 3 ms and no error, counts one {@code 200} for b1, ends the server meter
 * with 12 bytes out, and logs {@code GET / HTTP/1.1 … api b1 200 12 …}.
 */
final class ExchangeRecord {
  /** How an exchange ended, as far as the backend's record is concerned. */
  enum Ending { OK, FAILED, ABORTED }

  final long startNanos;
  /** When the slot was granted ({@code System.nanoTime()}); 0 before. */
  long slotNanos;
  long waitNanos;
  long bytesIn;
  long bytesOut;
  int backendStatus;
  /** Whether the backend's final head carried {@code Retry-After} (a 503 with it means overloaded). */
  boolean backendRetryAfter;
  /** The backend's {@code grpc-status} is one of the service's error codes: a failure, as a 5xx. */
  boolean grpcFailed;
  /** The backend's last {@code grpc-status}, or -1. */
  int grpcStatus = -1;
  int status;
  String loadReport;
  /** Why Fairway answered itself (see {@link dev.fairway.accesslog.AccessRecord#reason}), or {@code null}. */
  String reason;
  /** Why the last new backend connection could not be made (a refusal, a TLS handshake failure), or {@code null}. */
  Throwable connectFailure;
  /** Vert.x's HTTP meters of this request's method, towards the client and the backend; null when off. */
  private HttpMeters.Side.Method serverMeter;
  private HttpMeters.Side.Method clientMeter;
  private long upstreamNanos;
  private boolean logged;

  ExchangeRecord(long startNanos) {
    this.startNanos = startNanos;
  }

  /** The request is taken on: the server meter starts. */
  void begin(ExchangeContext ctx, HttpMethod method) {
    if (ctx.httpMeters().on()) {
      serverMeter = ctx.httpMeters().server().method(method);
      serverMeter.begin();
    }
  }

  /** A request goes to a backend (again, for a retry): the client meter starts anew. */
  void attempt(ExchangeContext ctx, HttpMethod method, long nowNanos) {
    if (ctx.httpMeters().on()) {
      if (clientMeter != null) {
        clientMeter.reset();
      }
      clientMeter = ctx.httpMeters().client().method(method);
      clientMeter.begin();
      upstreamNanos = nowNanos;
    }
  }

  /** The request's last byte went to the backend. */
  void requestSent() {
    if (clientMeter != null) {
      clientMeter.requestBytes(bytesIn);
    }
  }

  /** The backend's answer is over: the client meter ends with {@code code} and {@code bytes}. */
  void attemptEnded(int code, long nowNanos, long bytes) {
    if (clientMeter != null) {
      clientMeter.end(code, nowNanos - upstreamNanos, bytes);
      clientMeter = null;
    }
  }

  /** The backend's answer will not come: the client meter is dropped. */
  void attemptAbandoned() {
    if (clientMeter != null) {
      clientMeter.reset();
      clientMeter = null;
    }
  }

  /**
   * Gives the slot of {@code w} back, with the backend's latency since the grant, and (once, if
   * the backend answered or failed) records it in the tally and the backend's meters.
   */
  void release(ExchangeContext ctx, Waiter w, Ending outcome, long now) {
    Endpoint e = w.endpoint();
    if (e == null) {
      return;
    }
    long latency = slotNanos == 0 ? 0 : now - slotNanos; // 0: released before any backend was tried
    Outcome result = switch (outcome) {
      case OK -> Outcome.SUCCESS;
      case FAILED -> backendStatus >= 500 ? Outcome.of(backendStatus, backendRetryAfter)
          : grpcFailed ? Outcome.SERVER_ERROR : Outcome.NO_ANSWER;
      case ABORTED -> backendStatus > 0 ? Outcome.of(backendStatus, backendRetryAfter) : Outcome.ABANDONED;
    };
    if (ctx.table().release(w, now, latency, result) && outcome != Ending.ABORTED) {
      ctx.tally().record(e.id(), latency, result, loadReport);
      ctx.metrics().backend(e.id()).record(backendStatus, latency);
    }
  }

  boolean logged() {
    return logged;
  }

  /**
   * The exchange is over: ends the server meter and writes one access-log line, once; status 0
   * means the connection was cut.
   *
   * @return false if it was over already
   */
  boolean finish(ExchangeContext ctx, int finalStatus, long now, ClientRequest req, Downstream conn, String service,
                 Endpoint e, String requestId) {
    if (logged) {
      return false;
    }
    logged = true;
    if (serverMeter != null) {
      serverMeter.requestBytes(bytesIn);
      if (finalStatus == 0) {
        serverMeter.reset();
      } else {
        serverMeter.end(finalStatus, now - startNanos, bytesOut);
      }
    }
    AccessLog log = ctx.accessLog();
    if (log != null) {
      boolean agent = log.wantsAgent();
      String version = conn.multiplexed() ? "HTTP/2.0" : req.version() == HttpVersion.HTTP_1_0 ? "HTTP/1.0" : "HTTP/1.1";
      log.log(req.method().name(), req.uri(), version, agent ? req.field("referer") : null,
          agent ? req.field("user-agent") : null, conn.remote(), service, e == null ? "-" : e.id(), finalStatus,
          bytesOut, startNanos, e == null ? 0 : slotNanos, waitNanos, now, reason, requestId);
    }
    return true;
  }
}
