package dev.fairway.proxy.exchange;

import dev.fairway.balancer.Endpoint;
import dev.fairway.config.RetrySettings.RetryOn;
import dev.fairway.proxy.exchange.ExchangeRecord.Ending;
import dev.fairway.proxy.upstream.Upstream;
import dev.fairway.proxy.wire.ClientRequest;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.proxy.wire.RequestId;
import dev.fairway.route.Route;
import dev.fairway.tracing.TraceSpan;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;

/**
 * One client request on its way through the proxy, through the {@link Phase}s of its life: take a
 * slot (or wait for one), hold a backend connection ({@link BackendSide}), relay the request
 * ({@link RequestRelay}) and the response ({@link ResponseRelay}) with back-pressure, or bytes
 * both ways after an upgrade ({@link UpgradeTunnel}); release the slot exactly once and leave one
 * {@link ExchangeRecord}. The decisions are here; the relaying is in those classes.
 *
 * <p>Example: {@code GET /} routed to a service whose backends are all full waits up to
 * {@code waitTimeoutMs} ({@code WAITING}); granted b2 it takes an idle connection to b2 or opens
 * one ({@code CONNECTING}), writes its head ({@code FORWARDING}), relays b2's head
 * ({@code RESPONDING}), and when the last byte is written to the client ({@code DONE}) the slot
 * goes back to the table (or straight to the next waiter) and the connection back to the pool.
 *
 * <p>Everything but {@link #granted} runs on the client connection's event loop.
 */
public final class Exchange extends SlotHolder {
  final Downstream conn;
  final ClientRequest request;
  final RequestRelay requestRelay;
  final ResponseRelay responseRelay;
  /** A gRPC call: Fairway's own failures are trailers-only answers. */
  final boolean grpc;
  final BackendSide backend;

  /** Links and deadline in the lane's {@link ResponseDeadlines}. */
  Exchange prevArmed;
  Exchange nextArmed;
  long deadlineNanos;
  boolean armed;
  /** The armed response timeout is the request's deadline, not {@code responseMs}. */
  private boolean deadlineArmed;

  private Phase phase = Phase.WAITING;
  /** The client named a valid criticality: its field is forwarded as it came. */
  boolean criticalityNamed;
  /** The backend is told the deadline in the deadline field: the client sent one, or {@code totalMs} set it (not for gRPC, whose is in {@code grpc-timeout}). */
  boolean forwardDeadlineMs;
  private boolean backendKeepAlive;
  boolean clientGone;
  /** The exchange's {@code X-Request-Id} ({@link RequestId}): sent to the backend and the client, logged. */
  final String requestId;
  /** The request's span ({@link TraceSpan#NONE} when tracing is off or it is not sampled); all tries share it. */
  private final TraceSpan span;

  /** @param authority the client's {@code Host} (or absolute-form authority), or {@code null} */
  Exchange(ExchangeContext ctx, Downstream conn, ClientRequest request, Route route, String authority, String requestId) {
    super(ctx, route, new ExchangeRecord(System.nanoTime()));
    this.conn = conn;
    this.request = request;
    this.requestId = requestId;
    request.forwardField(RequestId.HEADER, requestId);
    this.span = ctx.tracer().start(request, route.service(), requestId);
    this.requestRelay = new RequestRelay(this, request.endsWithHead());
    this.responseRelay = new ResponseRelay(this,
        request.version() == HttpVersion.HTTP_1_0 ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1, request.keepAlive(),
        request.method() == HttpMethod.HEAD);
    this.grpc = request.grpc();
    this.backend = new BackendSide(this, authority);
  }

  /** Takes the request on: its criticality, deadline and the throttle's word ({@link Intake}), then a slot. */
  public void start() {
    record.begin(ctx, request.method());
    conn.bodyFault(requestRelay);
    if (request.hasBody()) {
      conn.pause(ReadPauses.AWAIT);
    }
    Failure refused = Intake.admit(this, record.startNanos);
    if (refused != null) {
      fail(refused);
      return;
    }
    requestRelay.keepBody(RetryRules.keepsBody(route.overload().retry(), request.method()));
    acquire();
  }

  /**
   * Connects to the granted {@code e}, unless the deadline has passed or leaves less than the
   * backends' usual answer time: then the slot goes back unused (504).
   */
  @Override
  void connect(Endpoint e, boolean fresh, long nowNanos) {
    if (unmeetable(nowNanos)) {
      release(Ending.ABORTED, nowNanos);
      fail(deadline.passed(nowNanos) ? Failure.DEADLINE_EXCEEDED : Failure.DEADLINE_UNMEETABLE);
      return;
    }
    phase = Phase.CONNECTING;
    record.slotNanos = nowNanos;
    if (e.h2c() && request.upgradeTo() != null) {
      release(Ending.ABORTED, nowNanos);
      fail(Failure.UPGRADE_TO_H2);
      return;
    }
    backend.connect(e, fresh, (int) Math.min(Integer.MAX_VALUE, route.timeouts().connectMs()), nowNanos);
  }

  /** A new backend connection is open, or could not be. */
  void onConnect(Upstream u, Throwable failure) {
    long now = System.nanoTime();
    if (failure != null) {
      record.connectFailure = failure;
      release(Ending.FAILED, now);
      if (clientGone) {
        finish(0, now);
      } else {
        retryElsewhere(Failure.ofConnect(failure), RetryOn.CONNECT_FAILURE);
      }
    } else if (clientGone) {
      unused(u, now);
      end(Ending.ABORTED, 0, now);
    } else if (deadline.passed(now)) {
      unused(u, now);
      release(Ending.ABORTED, now);
      fail(Failure.DEADLINE_EXCEEDED);
    } else if (u.multiplexed() && request.upgradeTo() != null) { // an https backend chose h2 by ALPN
      u.close();
      release(Ending.ABORTED, now);
      fail(Failure.UPGRADE_TO_H2);
    } else {
      backend.take(u, endpoint(), now);
    }
  }

  /** A backend connection opened for nothing: an HTTP/2 stream is closed, a connection pooled as good as new. */
  private void unused(Upstream u, long now) {
    if (u.multiplexed()) {
      u.close(); // nothing was sent on it
    } else {
      ctx.pool().offer(u, now);
    }
  }

  /** The request goes to a backend connection. */
  void attempt(long nowNanos) {
    phase = Phase.FORWARDING;
    record.attempt(ctx, request.method(), nowNanos);
  }

  /**
   * The request's last byte went out: the backend has {@code retry.perTryTimeoutMs} (else
   * {@code responseMs}) to answer, or until the deadline if sooner.
   */
  void awaitResponse(long nowNanos) {
    if (phase != Phase.RESPONDING && !armed) {
      long perTry = route.overload().retry().perTryTimeoutMs();
      long responseNanos = (perTry > 0 ? perTry : route.timeouts().responseMs()) * 1_000_000L;
      deadlineArmed = deadline.cuts(responseNanos, nowNanos);
      ctx.deadlines().arm(this, nowNanos + deadline.bound(responseNanos, nowNanos));
    }
  }

  /** A part of the client's request body (or its end). */
  public void fromClient(HttpContent c) {
    requestRelay.fromClient(c);
  }

  /** The client's read batch is over: send what it gave. */
  public void flushToUpstream() {
    backend.flush();
  }

  /** The client's connection can take more of the response. */
  public void clientWritable() {
    backend.clientWritable(phase == Phase.RESPONDING);
  }

  /** The client's connection is full (an HTTP/2 client's, which other streams filled): stop reading the response. */
  public void clientBlocked() {
    if (phase == Phase.RESPONDING && upstream() != null) {
      responseRelay.clientHoldsBack();
    }
  }

  /**
   * A final response head came: no more response timeout; what the backend reported (load, a
   * {@code Retry-After}) is noted,
   * and a lame duck's signal acted on at once.
   */
  void responseBegins(int code, boolean retryAfter, String report, boolean lameDuck, boolean keepAlive) {
    ctx.deadlines().disarm(this);
    if (guard != null && code < 500) {
      guard.served(System.nanoTime() - record.slotNanos);
    }
    phase = Phase.RESPONDING;
    record.backendStatus = code;
    record.backendRetryAfter = retryAfter;
    record.status = code;
    record.loadReport = report;
    if (lameDuck) {
      ctx.lameDuck().accept(endpoint());
    }
    backendKeepAlive = keepAlive;
  }

  /**
   * The response's last part came: the backend connection goes back to the pool if it can, the
   * part goes to the client ({@code raw}: made by {@link Downstream#rawHead} or
   * {@link Downstream#rawBody}, else a decoded one), and the slot is released.
   */
  void endResponse(boolean raw, Object last) {
    phase = Phase.DONE;
    long now = System.nanoTime();
    backend.giveBack(requestRelay.sent() && backendKeepAlive, now);
    boolean close = responseRelay.closeClient() || request.hasBody() && !requestRelay.ended(); // an unread body cannot be skipped
    conn.touch();
    if (raw) {
      conn.writeRaw(last);
    } else {
      conn.write(last);
    }
    conn.flush();
    record.attemptEnded(record.backendStatus, now, record.bytesOut);
    release(record.backendStatus >= 500 || record.grpcFailed ? Ending.FAILED : Ending.OK, now);
    finish(record.status, now);
    conn.exchangeDone(this, close);
  }

  /** The backend switched protocols: from now on the exchange is a tunnel. */
  void tunnel(HttpResponse switching) {
    ctx.deadlines().disarm(this);
    phase = Phase.TUNNEL;
    record.status = 101;
    record.backendStatus = 101;
    record.attemptEnded(101, System.nanoTime(), 0);
    backend.tunnel(switching);
  }

  /** The tunnel closed on either side: close the other, release the slot (once). */
  void closeTunnel() {
    if (!record.logged()) {
      backend.closeTunnel();
      end(Ending.OK, 101, System.nanoTime());
    }
  }

  /** The backend connection closed while this exchange held it, before the tunnel or the response's end. */
  void upstreamLost(Upstream u) {
    ctx.deadlines().disarm(this);
    requestRelay.cancelUploadTimer();
    if (backend.orphaned()) {
      release(Ending.ABORTED, System.nanoTime()); // the orphaned request's backend is done with it
    } else if (!over()) {
      record.attemptAbandoned();
      FailedTry.lost(this, u, phase == Phase.RESPONDING, deadlineArmed, System.nanoTime());
    }
  }

  /** A deadline of {@link ResponseDeadlines} passed ({@link FailedTry#timedOut}). */
  void onResponseTimeout() {
    FailedTry.timedOut(this, phase == Phase.RESPONDING, deadlineArmed);
  }

  /**
   * The client's body turned out malformed (a bad chunk size, say) while being forwarded: the
   * backend's request is cut, never completed, and the client gets 400 (or an aborted stream if
   * its response had begun).
   */
  void onBodyFault(Failure f) {
    if (over()) {
      return;
    }
    if (requestRelay.ended()) {
      conn.closeWhenDone(); // a later pipelined request's body broke: this one finishes first
      return;
    }
    if (phase == Phase.RESPONDING) {
      abort(Ending.ABORTED);
      return;
    }
    clientGone = true; // the backend side is given up as if the client had left
    cancelWait(); // if already granted, the grant sees clientGone and releases
    dropUpstream();
    release(Ending.ABORTED, System.nanoTime());
    fail(f);
  }

  /** The client connection closed. */
  public void clientGone() {
    if (backend.tunnelled()) {
      closeTunnel();
      return;
    }
    if (over()) {
      return;
    }
    clientGone = true;
    requestRelay.releasePending();
    if (cancelWait()) {
      phase = Phase.DONE;
      finish(0, System.nanoTime());
      return;
    }
    if (backend.upstream() != null) {
      dropUpstream();
      phase = Phase.DONE;
      end(Ending.ABORTED, 0, System.nanoTime());
    }
  }

  /** Closes the backend connection without hearing of it again. */
  void dropUpstream() {
    record.attemptAbandoned();
    ctx.deadlines().disarm(this);
    requestRelay.cancelUploadTimer();
    backend.drop();
  }

  /** The backend died mid-body or the client's body broke: never end the client stream cleanly. */
  void abort(Ending outcome) {
    phase = Phase.DONE;
    dropUpstream();
    requestRelay.releasePending();
    conn.reset();
    end(outcome, 0, System.nanoTime());
    conn.exchangeDone(this, true);
  }

  /**
   * Answers with Fairway's own status for {@code f} (a gRPC call: trailers-only with its
   * {@code grpc-status}), or cuts a response already under way.
   */
  @Override
  void fail(Failure f) {
    boolean responding = phase == Phase.RESPONDING;
    phase = Phase.DONE;
    requestRelay.releasePending();
    if (responding) {
      abort(Ending.FAILED);
      return;
    }
    record.status = f.status(); // a gRPC call's too: the access log and meters keep the HTTP equivalent
    record.reason = grpc ? f.reason(record.connectFailure) + " (grpc-status " + f.grpcStatus() + ")"
        : f.reason(record.connectFailure);
    boolean close = conn.respond(responseRelay.clientVersion(), responseRelay.clientKeepAlive(), f, route.waitTimeoutMs(criticality()),
        request.hasBody() && !requestRelay.ended(), grpc, requestId);
    record.bytesOut = grpc ? 0 : f.reason().length() + 1;
    finish(record.status, System.nanoTime());
    conn.exchangeDone(this, close);
  }

  @Override
  void end(Ending outcome, int status, long now) {
    release(outcome, now);
    finish(status, now);
  }

  /**
   * The exchange is over: its deadline, body copies, body-fault hook and backend head go, the
   * throttle hears whether it was accepted, and its record is written.
   */
  private void finish(int finalStatus, long now) {
    ctx.deadlines().disarm(this);
    requestRelay.cancelUploadTimer();
    requestRelay.dropReplay();
    if (guard != null) {
      guard.answered(criticality(), now, RetryRules.accepted(finalStatus, record.grpcStatus));
      guard = null;
    }
    if (record.finish(ctx, finalStatus, now, request, conn, route.service(), endpoint(), requestId)) {
      span.end(endpoint() == null ? null : endpoint().id(), record.waitNanos, attempts, finalStatus, record.reason);
      conn.releaseBodyFault(requestRelay);
      request.release();
    }
  }

  /** Whether nothing more is relayed as HTTP: the exchange is done or became a tunnel. */
  boolean over() {
    return phase == Phase.DONE || phase == Phase.TUNNEL;
  }

  boolean responding() {
    return phase == Phase.RESPONDING;
  }

  @Override
  EventLoop loop() {
    return conn.channel().eventLoop();
  }

  @Override
  boolean abandoned() {
    return clientGone;
  }

  @Override
  HttpMethod method() {
    return request.method();
  }

  @Override
  void rewindRequest() {
    requestRelay.rewind();
  }

  boolean draining() {
    return ctx.draining().getAsBoolean();
  }

  Upstream upstream() {
    return backend.upstream();
  }
}
