package dev.fairway.proxy.exchange;

import dev.fairway.balancer.Endpoint;
import dev.fairway.config.UpstreamTls;
import dev.fairway.proxy.upstream.Upstream;
import dev.fairway.proxy.upstream.UpstreamUser;
import dev.fairway.proxy.wire.ForwardingRules;
import dev.fairway.proxy.wire.RawBody;
import dev.fairway.proxy.wire.RawResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;

/**
 * An exchange's side towards the backend: the connection it holds (taken from the lane's pool or
 * newly opened), what that connection says (passed to the relay of the moment), and the
 * connection's end (back to the pool, or closed).
 *
 * <p>Example: granted b1, {@code connect(b1, false, now)} finds an idle connection to b1 in the
 * pool and {@link #take}s it: the request's head is made for b1 and written; b1's response parts
 * reach {@link #fromUpstream} and go to the {@link ResponseRelay}; at the response's end
 * {@link #giveBack} returns the connection to the pool if b1 kept it alive. For an {@code h2c://}
 * backend the exchange holds a stream of one of the lane's HTTP/2 connections instead
 * ({@link dev.fairway.proxy.upstream.H2Upstreams}), and its end closes the stream.
 */
final class BackendSide implements UpstreamUser {
  private final Exchange x;
  private final String authority;
  private Upstream upstream;
  private UpgradeTunnel tunnel;
  private boolean headPrepared;
  /** Fairway gave up waiting for the response head. */
  private boolean timedOut;
  /** The client got its 504 (deadline) while the backend still works on the request: its answer is dropped. */
  private boolean orphaned;

  BackendSide(Exchange x, String authority) {
    this.x = x;
    this.authority = authority;
  }

  Upstream upstream() {
    return upstream;
  }

  boolean tunnelled() {
    return tunnel != null;
  }

  boolean timedOut() {
    return timedOut;
  }

  /**
   * Gets a connection to {@code e}: an idle one from the pool (unless {@code fresh}), else a new
   * one, reported to {@link Exchange#onConnect}; over TLS, with the route's profile, for an
   * {@code https://} backend.
   */
  void connect(Endpoint e, boolean fresh, int connectMs, long nowNanos) {
    if (e.h2c()) { // a stream of a multiplexed connection: never pooled, so never stale
      x.ctx.pool().h2().stream(e.address(), e.host(), e.port(), null, connectMs, x::onConnect);
      return;
    }
    UpstreamTls tls = e.tls() ? x.route.tls() : null;
    String key = x.ctx.pool().key(e.address(), tls);
    Upstream u = fresh ? null : x.ctx.pool().poll(key, nowNanos);
    if (u != null) {
      take(u, e, nowNanos);
    } else if (tls != null && x.ctx.pool().h2().has(key)) { // an https backend that chose h2 by ALPN
      x.ctx.pool().h2().stream(key, e.host(), e.port(), tls, connectMs, x::onConnect);
    } else {
      x.ctx.pool().connect(e.host(), e.port(), tls, connectMs, x::onConnect);
    }
  }

  /**
   * Whether the request lost with {@code u} before its response may go to another backend
   * ({@link RetryPolicy}): a stream the backend did not process if its body can be sent again, a
   * stale keep-alive connection's request if it is idempotent and bodiless.
   */
  boolean retryable(Upstream u) {
    boolean gaveUp = timedOut || x.requestRelay.stalled();
    boolean interim = x.responseRelay.informational();
    return u.multiplexed() ? RetryPolicy.unprocessedStream(u.unprocessed(), gaveUp, interim, x.requestRelay.replayable())
        : RetryPolicy.staleConnection(u.reused(), u.cause(), gaveUp, interim, x.request.hasBody(), x.request.method());
  }

  @Override
  public int clientRoom() {
    return x.conn.room();
  }

  /** Holds {@code u} for the request and writes the request to it. */
  void take(Upstream u, Endpoint e, long nowNanos) {
    upstream = u;
    u.attach(this, x.conn.multiplexed());
    u.expectResponseTo(x.request.method() == HttpMethod.HEAD);
    boolean fresh = !headPrepared || authority == null || x.deadline.bounded() || x.attempts > 1;
    if (fresh) { // each try anew: what is left of the deadline, the attempt; a retry without Host names its backend
      OverloadFields.forward(x, nowNanos);
      headPrepared = true;
      x.request.toBackend(x.conn.remote(), x.conn.secure(), authority, x.ctx.limits().trustedHops(), e.address(),
          x.conn.multiplexed() ? ForwardingRules.VIA_TOKEN_H2 : ForwardingRules.VIA_TOKEN, x.conn.channel().alloc());
    }
    x.attempt(nowNanos);
    x.requestRelay.send(u, nowNanos);
  }

  /** The client was answered without the backend: from now on its answer is read and dropped. */
  void orphan() {
    orphaned = true;
  }

  boolean orphaned() {
    return orphaned;
  }

  @Override
  public void fromUpstream(Object msg) {
    if (orphaned) {
      boolean last = msg instanceof RawResponse r ? r.bodyLength() == 0
          : msg instanceof RawBody body ? body.last()
          : msg instanceof Http2HeadersFrame f ? f.isEndStream() : msg instanceof LastHttpContent;
      ReferenceCountUtil.release(msg);
      if (last) { // the backend is done: the slot goes back with what it answered, the connection closes
        x.ctx.deadlines().disarm(x);
        drop();
        x.release(ExchangeRecord.Ending.ABORTED, System.nanoTime());
      }
      return;
    }
    if (tunnel != null) {
      tunnel.fromUpstream(msg);
    } else {
      x.responseRelay.fromUpstream(msg);
    }
  }

  @Override
  public void flushToClient() {
    x.conn.touch();
    x.conn.flush();
  }

  @Override
  public void upstreamWritable() {
    if (tunnel != null) {
      tunnel.upstreamWritable();
    } else {
      x.requestRelay.upstreamWritable();
    }
  }

  @Override
  public void upstreamClosed(Upstream u) {
    if (u != upstream) {
      return;
    }
    if (orphaned) {
      upstream = null;
      x.upstreamLost(u);
      return;
    }
    if (tunnel != null) {
      x.closeTunnel();
      return;
    }
    upstream = null;
    x.upstreamLost(u);
  }

  /** The client's read batch is over: send what it gave. */
  void flush() {
    if (upstream != null) {
      upstream.flush();
    }
  }

  /** The client's connection can take more of the response: read the backend again. */
  void clientWritable(boolean responding) {
    if (upstream != null) {
      x.responseRelay.clientWritable(upstream, responding);
    }
  }

  /** No response head within {@code responseMs}: the connection is closed (504 follows). */
  void timeOut() {
    if (upstream != null) {
      timedOut = true;
      upstream.close();
    }
  }

  /** The response is over: the connection goes back to the pool if {@code reusable} and it can, else it closes. */
  void giveBack(boolean reusable, long nowNanos) {
    Upstream u = upstream;
    upstream = null;
    u.detach();
    if (reusable && u.poolable()) {
      u.autoRead(true);
      x.ctx.pool().offer(u, nowNanos);
    } else {
      u.close();
    }
  }

  /** Closes the connection without hearing of it again. */
  void drop() {
    Upstream u = upstream;
    upstream = null;
    if (u != null) {
      u.detach();
      u.close();
    }
  }

  /** The backend switched protocols: from now on bytes pass both ways through an {@link UpgradeTunnel}. */
  void tunnel(HttpResponse switching) {
    tunnel = new UpgradeTunnel(x.conn, upstream);
    tunnel.open(switching);
  }

  /** Closes both sides of the tunnel once what was written to each is sent. */
  void closeTunnel() {
    Upstream u = upstream;
    upstream = null;
    if (u != null) {
      u.detach();
    }
    tunnel.close(u != null);
  }
}
