package dev.fairway.proxy.exchange;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.Route;
import dev.fairway.metrics.ServiceMeters;
import dev.fairway.proxy.exchange.ExchangeRecord.Outcome;
import dev.fairway.proxy.upstream.Upstream;
import dev.fairway.proxy.upstream.UpstreamUser;
import dev.fairway.proxy.wire.ClientRequest;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.proxy.wire.ForwardingRules;
import dev.fairway.slots.Admission;
import dev.fairway.slots.Waiter;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One client request on its way through the proxy, through the {@link Phase}s of its life: take a
 * slot (or wait for one), get a backend connection, relay the request ({@link RequestRelay}) and
 * the response ({@link ResponseRelay}) with back-pressure, or bytes both ways after an upgrade
 * ({@link UpgradeTunnel}); release the slot exactly once and leave one {@link ExchangeRecord}.
 *
 * <p>Example: {@code GET /} routed to a service whose backends are all full waits up to
 * {@code waitTimeoutMs} ({@code WAITING}); granted b2 it takes an idle connection to b2 or opens
 * one ({@code CONNECTING}), writes its head ({@code FORWARDING}), relays b2's head
 * ({@code RESPONDING}), and when the last byte is written to the client ({@code DONE}) the slot
 * goes back to the table (or straight to the next waiter) and the connection back to the pool.
 *
 * <p>Everything but {@link #granted} runs on the client connection's event loop.
 */
public final class Exchange extends Waiter implements UpstreamUser {
  private final ExchangeContext ctx;
  private final Downstream conn;
  private final ClientRequest request;
  private final Route route;
  private final ServiceMeters meters;
  private final String authority;
  private final ExchangeRecord record;
  private final RequestRelay requestRelay;
  private final ResponseRelay responseRelay;
  private final Consumer<Failure> bodyFaultHandler = this::onBodyFault;
  private final HttpVersion clientVersion;
  private final boolean clientKeepAlive;

  /** Links and deadline in the lane's {@link ResponseDeadlines}. */
  Exchange prevArmed;
  Exchange nextArmed;
  long deadlineNanos;
  boolean armed;

  private Phase phase = Phase.CONNECTING;
  private ScheduledFuture<?> waitTimer;
  private Upstream upstream;
  private UpgradeTunnel tunnel;
  private boolean headPrepared;
  private boolean backendKeepAlive;
  private boolean retried;
  private boolean responseTimedOut;
  private boolean clientGone;
  /** The slot went back before the response ended: its client held the response back ({@link #onSlowClient}). */
  private boolean slotGivenBack;

  /** @param authority the client's {@code Host} (or absolute-form authority), or {@code null} */
  Exchange(ExchangeContext ctx, Downstream conn, ClientRequest request, Route route, String authority) {
    this.ctx = ctx;
    this.conn = conn;
    this.request = request;
    this.route = route;
    this.authority = authority;
    this.meters = ctx.metrics().service(route.service());
    HttpMethod method = request.method();
    this.record = new ExchangeRecord(ctx, method, System.nanoTime());
    this.clientVersion = request.version() == HttpVersion.HTTP_1_0 ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
    this.clientKeepAlive = request.keepAlive();
    this.requestRelay = new RequestRelay(this, conn, request, record, request.endsWithHead());
    this.responseRelay = new ResponseRelay(this, conn, record, clientVersion, clientKeepAlive, method == HttpMethod.HEAD);
  }

  public void start() {
    record.begin();
    conn.bodyFault(bodyFaultHandler);
    if (request.hasBody()) {
      conn.pause(ReadPauses.AWAIT);
    }
    Admission a = ctx.table().acquire(route.slots(), this, record.startNanos, ctx.lane());
    switch (a) {
      case GRANTED -> connect(endpoint(), false, record.startNanos);
      case QUEUED -> awaitSlot();
      case NO_BACKEND -> {
        meters.noBackend().increment();
        fail(Failure.NO_BACKEND);
      }
      case QUEUE_FULL -> {
        meters.queueFull().increment();
        fail(Failure.QUEUE_FULL);
      }
    }
  }

  private void awaitSlot() {
    phase = Phase.WAITING;
    if (route.waitTimeoutMs() == 0) {
      onWaitTimeout();
      return;
    }
    waitTimer = conn.channel().eventLoop().schedule(this::onWaitTimeout, route.waitTimeoutMs(), TimeUnit.MILLISECONDS);
  }

  private void onWaitTimeout() {
    waitTimer = null;
    if (ctx.table().cancel(this)) {
      meters.slotTimeouts().increment();
      meters.slotWait().record(System.nanoTime() - enqueuedNanos(), TimeUnit.NANOSECONDS);
      fail(Failure.SLOT_TIMEOUT);
    }
  }

  @Override
  protected void granted(Endpoint endpoint) {
    conn.channel().eventLoop().execute(() -> {
      cancelWaitTimer();
      long now = System.nanoTime();
      record.waitNanos = now - enqueuedNanos();
      meters.slotWait().record(record.waitNanos, TimeUnit.NANOSECONDS);
      if (clientGone) {
        release(Outcome.ABORTED, now);
        finish(0, now);
      } else {
        connect(endpoint, false, now);
      }
    });
  }

  /**
   * @param fresh    on a new connection, never a pooled one (retry after a stale keep-alive one)
   * @param nowNanos {@code System.nanoTime()} of the slot's grant, read once by the caller
   */
  private void connect(Endpoint e, boolean fresh, long nowNanos) {
    phase = Phase.CONNECTING;
    record.slotNanos = nowNanos;
    Upstream u = fresh ? null : ctx.pool().poll(e.address());
    if (u != null) {
      send(u, nowNanos);
    } else {
      ctx.pool().connect(e.host(), e.port(), (int) Math.min(Integer.MAX_VALUE, route.timeouts().connectMs()), this::onConnect);
    }
  }

  private void onConnect(Upstream u, Throwable failure) {
    if (failure != null) {
      release(Outcome.FAILED, System.nanoTime());
      if (clientGone) {
        finish(0, System.nanoTime());
      } else {
        retryElsewhere(Failure.CONNECT_FAILED);
      }
      return;
    }
    long now = System.nanoTime();
    if (clientGone) {
      ctx.pool().offer(u, now); // unused: as good as new for the next request
      release(Outcome.ABORTED, now);
      finish(0, now);
      return;
    }
    send(u, now);
  }

  /** Takes {@code u} for this request and writes the request to it. */
  private void send(Upstream u, long nowNanos) {
    phase = Phase.FORWARDING;
    upstream = u;
    u.attach(this);
    u.expectResponseTo(request.method() == HttpMethod.HEAD);
    if (!headPrepared || authority == null) { // a retry without Host names the backend it now goes to
      headPrepared = true;
      request.toBackend(conn.remote(), authority, ctx.limits().trustedHops(), endpoint().address(),
          conn.multiplexed() ? ForwardingRules.VIA_TOKEN_H2 : ForwardingRules.VIA_TOKEN, conn.channel().alloc());
    }
    record.attempt(nowNanos);
    requestRelay.send(u, nowNanos);
  }

  /** The request's last byte went out: the backend has {@code responseMs} to answer. */
  void awaitResponse(long nowNanos) {
    if (phase != Phase.RESPONDING && !armed) {
      ctx.deadlines().arm(this, nowNanos + route.timeouts().responseMs() * 1_000_000L);
    }
  }

  /** A part of the client's request body (or its end). */
  public void fromClient(HttpContent c) {
    requestRelay.fromClient(c);
  }

  /** The client's read batch is over: send what it gave. */
  public void flushToUpstream() {
    Upstream u = upstream;
    if (u != null) {
      u.channel().flush();
    }
  }

  @Override
  public void fromUpstream(Object msg) {
    if (tunnel != null) {
      tunnel.fromUpstream(msg);
    } else {
      responseRelay.fromUpstream(msg);
    }
  }

  @Override
  public void flushToClient() {
    conn.touch();
    conn.flush();
  }

  @Override
  public void upstreamWritable() {
    if (tunnel != null) {
      tunnel.upstreamWritable();
    } else {
      requestRelay.upstreamWritable();
    }
  }

  /** The client's connection can take more of the response. */
  public void clientWritable() {
    Upstream u = upstream;
    if (u != null) {
      if (phase == Phase.RESPONDING) {
        ctx.deadlines().disarm(this);
      }
      u.channel().config().setAutoRead(true);
    }
  }

  /**
   * The client's connection is full: the backend is read no further until it drains, and if that
   * takes {@code slowClientMs} the slot goes back ({@link #onSlowClient}).
   */
  void clientHoldsBack() {
    upstream.channel().config().setAutoRead(false);
    long ms = route.timeouts().slowClientMs();
    if (ms >= 0 && !slotGivenBack && !ctx.deadlines().armed(this)) {
      ctx.deadlines().arm(this, System.nanoTime() + ms * 1_000_000L);
    }
  }

  /**
   * A final response head came: no more response timeout; what the backend reported is noted,
   * and a lame duck's signal acted on at once.
   */
  void responseBegins(int code, String report, boolean lameDuck, boolean keepAlive) {
    ctx.deadlines().disarm(this);
    phase = Phase.RESPONDING;
    record.backendStatus = code;
    record.status = code;
    record.loadReport = report;
    if (lameDuck) {
      ctx.lameDuck().accept(endpoint());
    }
    backendKeepAlive = keepAlive;
  }

  /**
   * The response's last part came: it goes to the client ({@code raw}: made by {@link Downstream#rawHead}
   * or {@link Downstream#rawBody}, else a decoded one), the backend connection goes back to the pool if it can,
   * and the slot is released.
   */
  void endResponse(boolean raw, Object last) {
    phase = Phase.DONE;
    long now = System.nanoTime();
    Upstream u = upstream;
    upstream = null;
    u.detach();
    if (requestRelay.sent() && backendKeepAlive && u.reusable() && nothingUnsent(u.channel())) {
      u.channel().config().setAutoRead(true);
      ctx.pool().offer(u, now);
    } else {
      u.channel().close();
    }
    boolean close = responseRelay.closeClient() || request.hasBody() && !requestRelay.ended(); // an unread body cannot be skipped
    conn.touch();
    if (raw) {
      conn.writeRaw(last);
    } else {
      conn.write(last);
    }
    conn.flush();
    record.attemptEnded(record.backendStatus, now, record.bytesOut);
    release(record.backendStatus >= 500 ? Outcome.FAILED : Outcome.OK, now);
    finish(record.status, now);
    conn.exchangeDone(this, close);
  }

  /**
   * Whether everything written to a backend connection was sent: a backend that answered early
   * may leave part of the request body queued, which must not go before the next request.
   */
  private static boolean nothingUnsent(Channel ch) {
    ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
    return out == null || out.totalPendingWriteBytes() == 0;
  }

  /** The backend switched protocols: from now on the exchange is an {@link UpgradeTunnel}. */
  void tunnel(HttpResponse switching) {
    ctx.deadlines().disarm(this);
    phase = Phase.TUNNEL;
    record.status = 101;
    record.backendStatus = 101;
    record.attemptEnded(101, System.nanoTime(), 0);
    tunnel = new UpgradeTunnel(conn, upstream);
    tunnel.open(switching);
  }

  /** The tunnel closed on either side: close the other, release the slot (once). */
  private void closeTunnel() {
    if (record.logged()) {
      return;
    }
    Upstream u = upstream;
    upstream = null;
    if (u != null) {
      u.detach();
    }
    tunnel.close(u != null);
    release(Outcome.OK, System.nanoTime());
    finish(101, System.nanoTime());
  }

  @Override
  public void upstreamClosed(Upstream u) {
    if (u != upstream) {
      return;
    }
    if (tunnel != null) {
      closeTunnel();
      return;
    }
    upstream = null;
    ctx.deadlines().disarm(this);
    requestRelay.cancelUploadTimer();
    if (over()) {
      return;
    }
    record.attemptAbandoned();
    if (phase == Phase.RESPONDING) {
      abort(Outcome.FAILED);
      return;
    }
    if (staleConnection(u)) {
      release(Outcome.ABORTED, System.nanoTime());
      retryElsewhere(Failure.BAD_RESPONSE);
      return;
    }
    release(Outcome.FAILED, System.nanoTime());
    fail(responseTimedOut ? Failure.RESPONSE_TIMEOUT : requestRelay.stalled() ? Failure.UPLOAD_STALLED : Failure.BAD_RESPONSE);
  }

  /**
   * A pooled keep-alive connection that the backend had closed while idle: the request died with
   * the connection (closed or reset) before any response. A request without a body and with an
   * idempotent method is then safe to send again, and must not turn into a client error.
   */
  private boolean staleConnection(Upstream u) {
    return u.reused() && !responseTimedOut && !requestRelay.stalled() && !responseRelay.informational()
        && (u.cause() == null || u.cause() instanceof IOException) && !request.hasBody() && idempotent(request.method());
  }

  private static boolean idempotent(HttpMethod m) {
    return m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS || m == HttpMethod.TRACE
        || m == HttpMethod.PUT || m == HttpMethod.DELETE;
  }

  /**
   * Retries once, never on the backend that just failed and always on a new connection (a pooled
   * one could be just as stale); {@code otherwise} if that is not possible.
   */
  private void retryElsewhere(Failure otherwise) {
    Endpoint failed = endpoint();
    long now = System.nanoTime();
    if (!retried && ctx.table().acquireExcept(route.slots(), this, now, failed) == Admission.GRANTED) {
      retried = true;
      meters.retries().increment();
      connect(endpoint(), true, now);
      return;
    }
    fail(otherwise);
  }

  /**
   * A deadline of {@link ResponseDeadlines} passed: before the response head, no response headers
   * within {@code responseMs} (give up on the backend: 504); after it, the client held the response
   * back for {@code slowClientMs}.
   */
  void onResponseTimeout() {
    if (phase == Phase.RESPONDING) {
      onSlowClient();
      return;
    }
    if (upstream != null && !over()) {
      responseTimedOut = true;
      upstream.channel().close();
    }
  }

  /**
   * The client held the response back for {@code slowClientMs}: the backend has done its part and
   * its slot goes back to the table (or the next waiter), so clients that read slowly cannot hold
   * every slot of a backend. The response goes on, still read only as fast as the client takes it.
   */
  private void onSlowClient() {
    if (slotGivenBack) {
      return;
    }
    slotGivenBack = true;
    meters.slowClients().increment();
    release(Outcome.OK, System.nanoTime());
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
      abort(Outcome.ABORTED);
      return;
    }
    clientGone = true; // the backend side is given up as if the client had left
    if (cancelWaitTimer()) {
      ctx.table().cancel(this); // if already granted, the grant sees clientGone and releases
    }
    dropUpstream();
    release(Outcome.ABORTED, System.nanoTime());
    fail(f);
  }

  /** The client connection closed. */
  public void clientGone() {
    if (tunnel != null) {
      closeTunnel();
      return;
    }
    if (over()) {
      return;
    }
    clientGone = true;
    requestRelay.releasePending();
    if (cancelWaitTimer()) {
      if (ctx.table().cancel(this)) {
        phase = Phase.DONE;
        finish(0, System.nanoTime());
      }
      return; // granted meanwhile: the grant sees clientGone and releases
    }
    if (upstream != null) {
      dropUpstream();
      phase = Phase.DONE;
      release(Outcome.ABORTED, System.nanoTime());
      finish(0, System.nanoTime());
    }
  }

  /** @return whether a wait timer was running */
  private boolean cancelWaitTimer() {
    if (waitTimer == null) {
      return false;
    }
    waitTimer.cancel(false);
    waitTimer = null;
    return true;
  }

  /** Closes the backend connection without hearing of it again. */
  private void dropUpstream() {
    record.attemptAbandoned();
    ctx.deadlines().disarm(this);
    requestRelay.cancelUploadTimer();
    Upstream u = upstream;
    upstream = null;
    if (u != null) {
      u.detach();
      u.channel().close();
    }
  }

  /** The backend died mid-body or the client's body broke: never end the client stream cleanly. */
  private void abort(Outcome outcome) {
    phase = Phase.DONE;
    dropUpstream();
    requestRelay.releasePending();
    conn.reset();
    release(outcome, System.nanoTime());
    finish(0, System.nanoTime());
    conn.exchangeDone(this, true);
  }

  private void fail(Failure f) {
    boolean responding = phase == Phase.RESPONDING;
    phase = Phase.DONE;
    requestRelay.releasePending();
    if (responding) {
      abort(Outcome.FAILED);
      return;
    }
    record.status = f.status();
    boolean close = conn.respond(clientVersion, clientKeepAlive, f, route.waitTimeoutMs(),
        request.hasBody() && !requestRelay.ended());
    record.bytesOut = f.reason().length() + 1;
    finish(record.status, System.nanoTime());
    conn.exchangeDone(this, close);
  }

  private void release(Outcome outcome, long now) {
    record.release(this, outcome, now);
  }

  /** The exchange is over: its deadline, body-fault hook and backend head go, and its record is written. */
  private void finish(int finalStatus, long now) {
    ctx.deadlines().disarm(this);
    if (record.finish(finalStatus, now, request, conn, route.service(), endpoint())) {
      conn.releaseBodyFault(bodyFaultHandler);
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

  boolean draining() {
    return ctx.draining().getAsBoolean();
  }

  Upstream upstream() {
    return upstream;
  }

  Route route() {
    return route;
  }

  String upgradeTo() {
    return request.upgradeTo();
  }
}
