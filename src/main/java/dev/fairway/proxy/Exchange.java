package dev.fairway.proxy;

import dev.fairway.balancer.Endpoint;
import dev.fairway.metrics.ServiceMeters;
import dev.fairway.route.Route;
import dev.fairway.slots.Admission;
import dev.fairway.slots.SlotTable;
import dev.fairway.slots.Waiter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One client request on its way through the proxy: take a slot (or wait for one), get a backend
 * connection, stream the request and the response with back-pressure, release the slot exactly
 * once.
 *
 * <p>Example: {@code GET /} routed to a service whose backends are all full waits up to
 * {@code waitTimeoutMs}; granted b2 it takes an idle connection to b2 (or opens one), and when
 * the last byte of b2's answer is written to the client the slot goes back to the table (or
 * straight to the next waiter) and the connection back to the pool.
 *
 * <p>The request and response heads are Netty's own objects, edited in place and passed on; body
 * parts are passed on as they come, without copying. Everything but {@link #granted} runs on the
 * client connection's event loop.
 */
final class Exchange extends Waiter {
  private final ProxyVerticle proxy;
  private final Downstream conn;
  /** The request as Netty decoded it, or {@code null} for a {@link RawRequest}. */
  private final HttpRequest req;
  /** The request as its bytes, or {@code null} for a decoded one. */
  private final RawRequest raw;
  private final HttpMethod method;
  private final Route route;
  private final SlotTable table;
  private final ServiceMeters meters;
  private final HttpMeters httpMeters;
  private final String authority;
  private final long startNanos;
  private final boolean hasBody;
  /** What {@code Upgrade} asks of the backend (without {@code h2c}), or {@code null}: no upgrade. */
  private final String upgradeTo;
  private final boolean headRequest;
  /** What the client's request head said, before it is turned into the backend's. */
  private final HttpVersion clientVersion;
  private final boolean clientKeepAlive;
  private final boolean expectContinue;
  private final Consumer<Failure> bodyFaultHandler = this::onBodyFault;

  /** Links and deadline in the verticle's {@link ResponseDeadlines}. */
  Exchange prevArmed;
  Exchange nextArmed;
  long deadlineNanos;
  boolean armed;

  private ScheduledFuture<?> waitTimer;
  private ScheduledFuture<?> uploadTimer;
  private Upstream upstream;
  /** Body parts that came before the backend connection was ready. */
  private ArrayDeque<HttpContent> pending;
  private boolean headPrepared;
  /** A raw request's head for the backend, kept for a retry; released when the exchange is over. */
  private ByteBuf backendHead;
  private boolean requestEnded;
  private boolean requestSent;
  private boolean responseStarted;
  private boolean informational;
  private boolean responseKeepAlive;
  private boolean closeClient;
  private boolean tunnelled;
  private boolean retried;
  private boolean responseTimedOut;
  private boolean uploadStalled;
  private boolean clientGone;
  /** The slot went back before the response ended: its client held the response back ({@link #onSlowClient}). */
  private boolean slotGivenBack;
  private boolean done;
  private boolean logged;
  private int backendStatus;
  private int status;
  private long slotNanos;
  private long waitNanos;
  private long bytesIn;
  private long bytesOut;
  private String loadReport;
  /** Vert.x's HTTP meters of this request's method, towards the client and the backend; null when off. */
  private HttpMeters.Side.Method serverMeter;
  private HttpMeters.Side.Method clientMeter;
  private long upstreamNanos;

  /** How an exchange ended, as far as the backend's record is concerned. */
  private enum Outcome { OK, FAILED, ABORTED }

  /**
   * @param authority the client's {@code Host}, or {@code null}
   * @param hasBody   what {@link #hasBody} says of the request
   */
  Exchange(ProxyVerticle proxy, Downstream conn, HttpRequest req, RawRequest raw, Route route, String authority,
           boolean hasBody) {
    this.proxy = proxy;
    this.conn = conn;
    this.req = req;
    this.raw = raw;
    this.method = raw != null ? raw.method() : req.method();
    this.route = route;
    this.table = proxy.table();
    this.meters = proxy.metrics().service(route.service());
    this.httpMeters = proxy.meters();
    this.authority = authority;
    this.startNanos = System.nanoTime();
    this.hasBody = hasBody;
    this.headRequest = method == HttpMethod.HEAD;
    this.upgradeTo = raw == null && !hasBody ? upgradeTo(req) : null;
    HttpVersion version = raw != null ? raw.version() : req.protocolVersion();
    this.clientVersion = version == HttpVersion.HTTP_1_0 ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
    this.clientKeepAlive = raw != null ? raw.keepAlive() : HttpUtil.isKeepAlive(req);
    this.expectContinue = raw == null && HttpUtil.is100ContinueExpected(req);
    this.requestEnded = raw != null; // a raw request is its head alone
  }

  void start() {
    if (httpMeters.on()) {
      serverMeter = httpMeters.server().method(method);
      serverMeter.begin();
    }
    conn.bodyFault(bodyFaultHandler);
    if (hasBody) {
      conn.pause(ReadPauses.AWAIT);
    }
    Admission a = table.acquire(route.slots(), this, startNanos, proxy.lane());
    switch (a) {
      case GRANTED -> connect(endpoint(), false, startNanos);
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

  /** Whether a request carries a body (RFC 9112 §6.3: only a framing header says so). */
  static boolean hasBody(HttpHeaders h) {
    if (h.contains(HttpHeaderNames.TRANSFER_ENCODING)) {
      return true;
    }
    String cl = h.get(HttpHeaderNames.CONTENT_LENGTH);
    return cl != null && !cl.equals("0");
  }

  /**
   * What a {@code GET} asks to switch to ({@code Upgrade} listed in {@code Connection}, e.g.
   * {@code websocket}), without {@code h2c}: {@code null} if nothing is left. HTTP/2 over
   * cleartext is offered by prior knowledge on Fairway's own port; an {@code h2c} upgrade passed on
   * would give the client a raw HTTP/2 connection to the backend, past routing and slots.
   */
  static String upgradeTo(HttpRequest req) {
    HttpHeaders h = req.headers();
    String asked = h.get(HttpHeaderNames.UPGRADE);
    if (req.method() != HttpMethod.GET || asked == null || !Headers.listedIn(Headers.connectionValue(h), "upgrade")) {
      return null;
    }
    return Headers.withoutToken(asked, "h2c");
  }

  private static boolean isIdempotent(HttpMethod m) {
    return m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS || m == HttpMethod.TRACE
        || m == HttpMethod.PUT || m == HttpMethod.DELETE;
  }

  private void awaitSlot() {
    if (route.waitTimeoutMs() == 0) {
      onWaitTimeout();
      return;
    }
    waitTimer = conn.channel().eventLoop().schedule(this::onWaitTimeout, route.waitTimeoutMs(), TimeUnit.MILLISECONDS);
  }

  private void onWaitTimeout() {
    waitTimer = null;
    if (table.cancel(this)) {
      meters.slotTimeouts().increment();
      meters.slotWait().record(System.nanoTime() - enqueuedNanos(), TimeUnit.NANOSECONDS);
      fail(Failure.SLOT_TIMEOUT);
    }
  }

  @Override
  protected void granted(Endpoint endpoint) {
    conn.channel().eventLoop().execute(() -> {
      if (waitTimer != null) {
        waitTimer.cancel(false);
        waitTimer = null;
      }
      long now = System.nanoTime();
      waitNanos = now - enqueuedNanos();
      meters.slotWait().record(waitNanos, TimeUnit.NANOSECONDS);
      if (clientGone) {
        release(Outcome.ABORTED);
        finish(0);
      } else {
        connect(endpoint, false, now);
      }
    });
  }

  /**
   * @param fresh   on a new connection, never a pooled one (retry after a stale keep-alive one)
   * @param nowNanos {@code System.nanoTime()} of the slot's grant, read once by the caller
   */
  private void connect(Endpoint e, boolean fresh, long nowNanos) {
    slotNanos = nowNanos;
    Upstream u = fresh ? null : proxy.pool().poll(e.address());
    if (u != null) {
      send(u, nowNanos);
    } else {
      proxy.pool().connect(e.host(), e.port(), (int) Math.min(Integer.MAX_VALUE, route.timeouts().connectMs()), this::onConnect);
    }
  }

  private void onConnect(Upstream u, Throwable failure) {
    if (failure != null) {
      release(Outcome.FAILED);
      if (clientGone) {
        finish(0);
      } else {
        retryElsewhere(Failure.CONNECT_FAILED);
      }
      return;
    }
    long now = System.nanoTime();
    if (clientGone) {
      proxy.pool().offer(u, now); // unused: as good as new for the next request
      release(Outcome.ABORTED, now);
      finish(0, now);
      return;
    }
    send(u, now);
  }

  /**
   * Writes the request head, and whatever of the body came already, to the backend connection.
   *
   * @param nowNanos {@code System.nanoTime()}, read once by the caller
   */
  private void send(Upstream u, long nowNanos) {
    upstream = u;
    u.attach(this);
    u.expectResponseTo(headRequest);
    Channel ch = u.channel();
    if (!headPrepared) {
      prepareHead();
    } else if (authority == null) {
      hostForRetry();
    }
    if (httpMeters.on()) {
      if (clientMeter != null) {
        clientMeter.reset(); // the attempt before a retry
      }
      clientMeter = httpMeters.client().method(method);
      clientMeter.begin();
      upstreamNanos = nowNanos;
    }
    if (raw != null) {
      u.wire().writeAndFlush(backendHead.retainedDuplicate());
      requestSent(nowNanos);
      return;
    }
    ch.write(req);
    if (!hasBody) {
      ch.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
      requestSent(nowNanos);
      return;
    }
    if (pending != null) {
      HttpContent c;
      while ((c = pending.poll()) != null) {
        ch.write(c);
      }
    }
    ch.flush();
    if (requestEnded) {
      requestSent(nowNanos);
      return;
    }
    if (expectContinue) {
      conn.writeRaw(conn.continueMessage());
      conn.flush();
    }
    if (!ch.isWritable()) {
      conn.pause(ReadPauses.UPSTREAM);
      armUploadTimer();
    }
    conn.resume(ReadPauses.AWAIT);
  }

  /** Turns the client's request head into the backend's (once: a retry sends the same head, see {@link #hostForRetry}). */
  private void prepareHead() {
    headPrepared = true;
    if (raw != null) {
      backendHead = raw.toBackend(conn.remote(), authority, proxy.limits(), endpoint().address(), via(),
          conn.channel().alloc());
      return;
    }
    HttpHeaders h = req.headers();
    boolean chunked = HttpUtil.isTransferEncodingChunked(req);
    Headers.toBackend(h, conn.remote(), authority, proxy.limits(), via());
    h.set(HttpHeaderNames.HOST, authority != null ? authority : endpoint().address());
    if (chunked) {
      h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
    if (upgradeTo != null) {
      h.set(HttpHeaderNames.UPGRADE, upgradeTo);
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
    }
    req.setProtocolVersion(HttpVersion.HTTP_1_1);
  }

  /** What the backend's {@code Via} gets: the protocol the request came in, and Fairway. */
  private String via() {
    return conn.multiplexed() ? Headers.VIA_TOKEN_H2 : Headers.VIA_TOKEN;
  }

  /**
   * A retry of a request that came without {@code Host}: the head sent again names the backend it
   * now goes to, as {@link #prepareHead} did for the first one.
   */
  private void hostForRetry() {
    if (raw != null) {
      backendHead.release();
      backendHead = raw.toBackend(conn.remote(), authority, proxy.limits(), endpoint().address(), via(),
          conn.channel().alloc());
    } else {
      req.headers().set(HttpHeaderNames.HOST, endpoint().address());
    }
  }

  /** A part of the client's request body (or its end). */
  void fromClient(HttpContent c) {
    if (c.decoderResult().isFailure()) {
      c.release(); // never forwarded: the encoder would end the backend's request cleanly
      onBodyFault(Failure.MALFORMED_REQUEST);
      return;
    }
    boolean last = c instanceof LastHttpContent;
    if (last) {
      requestEnded = true;
      dropTrailers((LastHttpContent) c);
    }
    if (done || !hasBody) {
      c.release();
      return;
    }
    bytesIn += c.content().readableBytes();
    Upstream u = upstream;
    if (u == null) {
      if (pending == null) {
        pending = new ArrayDeque<>(4);
      }
      pending.add(c);
      return;
    }
    Channel ch = u.channel();
    ch.write(c);
    if (last) {
      requestSent(System.nanoTime());
    } else if (!ch.isWritable()) {
      conn.pause(ReadPauses.UPSTREAM);
      armUploadTimer();
    }
  }

  /** Trailer fields are checked by the guard but not forwarded, either way (as with Vert.x before). */
  private static void dropTrailers(LastHttpContent last) {
    if (!last.trailingHeaders().isEmpty()) {
      last.trailingHeaders().clear();
    }
  }

  /** The client's read batch is over: send what it gave. */
  void flushToUpstream() {
    Upstream u = upstream;
    if (u != null) {
      u.channel().flush();
    }
  }

  /** @param nowNanos {@code System.nanoTime()} when the request's last byte was written */
  private void requestSent(long nowNanos) {
    requestSent = true;
    cancelUploadTimer();
    if (clientMeter != null) {
      clientMeter.requestBytes(bytesIn);
    }
    if (!responseStarted && !armed) {
      proxy.deadlines().arm(this, nowNanos + route.timeouts().responseMs() * 1_000_000L);
    }
  }

  /** The backend's connection can take more of the body. */
  void upstreamWritable() {
    if (tunnelled) {
      conn.resume(ReadPauses.TUNNEL);
      return;
    }
    if (!done) {
      cancelUploadTimer();
      conn.resume(ReadPauses.UPSTREAM);
    }
  }

  /** The client's connection can take more of the response. */
  void clientWritable() {
    Upstream u = upstream;
    if (u != null) {
      if (responseStarted && !tunnelled) {
        proxy.deadlines().disarm(this);
      }
      u.channel().config().setAutoRead(true);
    }
  }

  /**
   * The client's connection is full: the backend is read no further until it drains, and if that
   * takes {@code slowClientMs} the slot goes back ({@link #onSlowClient}).
   */
  private void clientHoldsBack() {
    upstream.channel().config().setAutoRead(false);
    long ms = route.timeouts().slowClientMs();
    if (ms >= 0 && !slotGivenBack && !proxy.deadlines().armed(this)) {
      proxy.deadlines().arm(this, System.nanoTime() + ms * 1_000_000L);
    }
  }

  /**
   * The client held the response back for {@code slowClientMs}: the backend has done its part and
   * its slot goes back to the table (or the next waiter), so clients that read slowly cannot hold
   * every slot of a backend. The response goes on, still read only as fast as the client takes it.
   */
  private void onSlowClient() {
    if (done || slotGivenBack) {
      return;
    }
    slotGivenBack = true;
    meters.slowClients().increment();
    release(Outcome.OK);
  }

  /** Something the backend sent: a response head, a body part, or (tunnelled) raw bytes. */
  void fromUpstream(Object msg) {
    if (tunnelled) {
      if (msg instanceof ByteBuf || msg instanceof HttpContent c && c.content().isReadable()) {
        conn.channel().write(msg instanceof HttpContent c ? c.content() : msg);
        if (!conn.channel().isWritable()) {
          upstream.channel().config().setAutoRead(false);
        }
      } else {
        ReferenceCountUtil.release(msg);
      }
      return;
    }
    if (msg instanceof RawBody b) {
      onRawBody(b);
      return;
    }
    if (msg instanceof RawResponse r) {
      onRawResponse(r);
      return;
    }
    if (msg instanceof HttpResponse r) {
      onResponseHead(r);
    }
    if (msg instanceof HttpContent c) {
      onResponseContent(c);
    } else if (!(msg instanceof HttpResponse)) {
      ReferenceCountUtil.release(msg);
    }
  }

  /**
   * A final response head framed by its length, as the backend's bytes: the client's head is
   * written from them ({@link RawResponse#toClient}); a bodiless response ends here.
   */
  private void onRawResponse(RawResponse r) {
    closeClient = !clientKeepAlive || proxy.draining();
    boolean bodyless = r.bodyLength() == 0;
    Object head = conn.rawHead(r, clientVersion == HttpVersion.HTTP_1_0, closeClient, bodyless);
    responseBegins(r.status(), r.loadReport(), r.lameDuck(), r.keepAlive());
    if (bodyless) {
      endResponse(true, head);
    } else {
      conn.writeRaw(head);
    }
  }

  /**
   * A final response's head came (either way): no more response timeout; what the backend
   * reported is noted, and a lame duck's signal acted on at once.
   */
  private void responseBegins(int code, String report, boolean lameDuck, boolean backendKeepAlive) {
    proxy.deadlines().disarm(this);
    backendStatus = code;
    status = code;
    responseStarted = true;
    loadReport = report;
    if (lameDuck) {
      proxy.lameDuckSignal(endpoint());
    }
    responseKeepAlive = backendKeepAlive;
  }

  /** A part of a {@link RawResponse}'s body, passed to the client as it is. */
  private void onRawBody(RawBody b) {
    ByteBuf content = b.content();
    bytesOut += content.readableBytes();
    if (!b.last()) {
      conn.writeRaw(conn.rawBody(content, false));
      if (!conn.writable()) {
        clientHoldsBack();
      }
      return;
    }
    endResponse(true, conn.rawBody(content, true));
  }

  private void onResponseHead(HttpResponse r) {
    if (r.decoderResult().isFailure()) {
      upstream.cause = r.decoderResult().cause();
      upstream.channel().close();
      return;
    }
    int code = r.status().code();
    if (code == 101) {
      if (upgradeTo != null) {
        tunnel(r);
      } else {
        upstream.cause = new Rejection(Failure.BAD_RESPONSE); // switching protocols nobody asked for: 502
        upstream.channel().close();
      }
      return;
    }
    if (code < 200) {
      informational = true;
      relayInformational(r);
      return;
    }
    HttpHeaders h = r.headers();
    responseBegins(code, h.get(Headers.LOAD_METRICS), "true".equalsIgnoreCase(h.get(Headers.LAME_DUCK)),
        HttpUtil.isKeepAlive(r));
    boolean framed = h.contains(HttpHeaderNames.CONTENT_LENGTH);
    Headers.toClient(h);
    HttpVersion version = clientVersion;
    r.setProtocolVersion(version);
    closeClient = !clientKeepAlive || proxy.draining();
    boolean bodyless = headRequest || code == 204 || code == 304;
    if (!framed && !bodyless) {
      if (version == HttpVersion.HTTP_1_1) {
        h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      } else {
        closeClient = true; // an HTTP/1.0 client reads a body of unknown length until the connection closes
      }
    }
    if (closeClient) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    } else if (version == HttpVersion.HTTP_1_0) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    }
    conn.write(r);
  }

  /**
   * Relays a 1xx interim response such as {@code 103 Early Hints} to an HTTP/1.1 client, minus
   * hop-by-hop fields. {@code 100 Continue} is not relayed: Fairway answers {@code Expect} itself
   * and does not forward it. HTTP/1.0 clients get none (RFC 9110 §15.2), nor do HTTP/2 streams.
   */
  private void relayInformational(HttpResponse r) {
    if (r.status().code() == 100 || clientVersion != HttpVersion.HTTP_1_1 || conn.multiplexed()) {
      return;
    }
    Headers.toClient(r.headers());
    FullHttpResponse interim = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, r.status(), Unpooled.EMPTY_BUFFER,
        r.headers(), EmptyHttpHeaders.INSTANCE);
    conn.write(interim);
  }

  private void onResponseContent(HttpContent c) {
    if (c.decoderResult().isFailure()) {
      c.release(); // never an end: the client's stream is cut (the connection's close aborts it)
      upstream.cause = c.decoderResult().cause();
      upstream.channel().close();
      return;
    }
    boolean last = c instanceof LastHttpContent;
    if (informational || !responseStarted) {
      c.release();
      if (last) {
        informational = false;
      }
      return;
    }
    bytesOut += c.content().readableBytes();
    if (!last) {
      conn.write(c);
      if (!conn.writable()) {
        clientHoldsBack();
      }
      return;
    }
    dropTrailers((LastHttpContent) c);
    endResponse(false, c);
  }

  /**
   * The response's last part came: it goes to the client ({@code raw}: made by {@link Downstream#rawHead}
   * or {@link Downstream#rawBody}, else a decoded one), the backend connection goes back to the pool if it can,
   * and the slot is released.
   */
  private void endResponse(boolean raw, Object last) {
    done = true;
    long now = System.nanoTime();
    Upstream u = upstream;
    upstream = null;
    u.detach();
    if (requestSent && responseKeepAlive && u.reusable() && nothingUnsent(u.channel())) {
      u.channel().config().setAutoRead(true);
      proxy.pool().offer(u, now);
    } else {
      u.channel().close();
    }
    boolean close = closeClient || hasBody && !requestEnded; // the rest of an unread body cannot be skipped
    conn.touch();
    if (raw) {
      conn.writeRaw(last);
    } else {
      conn.write(last);
    }
    conn.flush();
    if (clientMeter != null) {
      clientMeter.end(backendStatus, now - upstreamNanos, bytesOut);
      clientMeter = null;
    }
    release(backendStatus >= 500 ? Outcome.FAILED : Outcome.OK, now);
    finish(status, now);
    conn.exchangeDone(this, close);
  }

  /** Closes a tunnel's side once what was written to it is sent (a plain close would drop it). */
  private static void closeAfterWrites(Channel ch) {
    ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  /**
   * Whether everything written to a backend connection was sent: a backend that answered early
   * may leave part of the request body queued, which must not go before the next request.
   */
  private static boolean nothingUnsent(Channel ch) {
    ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
    return out == null || out.totalPendingWriteBytes() == 0;
  }

  /** The backend's read batch is over: send the client what it gave. */
  void flushToClient() {
    conn.touch();
    conn.flush();
  }

  /**
   * The backend switched protocols: relay its {@code 101} and then the raw bytes both ways. The
   * slot stays taken while the tunnel is open and is released once, when either side closes.
   */
  private void tunnel(HttpResponse r) {
    proxy.deadlines().disarm(this);
    tunnelled = true;
    done = true;
    status = 101;
    backendStatus = 101;
    if (clientMeter != null) {
      clientMeter.end(101, System.nanoTime() - upstreamNanos, 0);
      clientMeter = null;
    }
    r.headers().remove(Headers.LAME_DUCK).remove(Headers.LOAD_METRICS);
    r.setProtocolVersion(HttpVersion.HTTP_1_1);
    conn.write(r);
    conn.flush();
    conn.tunnelTo(upstream.channel());
    upstream.channel().pipeline().remove(UpstreamPool.DECODER);
    upstream.channel().pipeline().remove(UpstreamPool.ENCODER);
  }

  /** The tunnel closed on either side: close the other, release the slot (once). */
  private void closeTunnel() {
    if (logged) {
      return;
    }
    Upstream u = upstream;
    upstream = null;
    if (u != null) {
      u.detach();
      closeAfterWrites(u.channel());
    }
    closeAfterWrites(conn.channel());
    release(Outcome.OK);
    finish(101);
  }

  /** The backend connection closed while this exchange had it. */
  void upstreamClosed(Upstream u) {
    if (u != upstream) {
      return;
    }
    if (tunnelled) {
      closeTunnel();
      return;
    }
    upstream = null;
    proxy.deadlines().disarm(this);
    cancelUploadTimer();
    if (done) {
      return;
    }
    endClientMeter();
    if (responseStarted) {
      abort(Outcome.FAILED);
      return;
    }
    if (staleConnection(u)) {
      release(Outcome.ABORTED);
      retryElsewhere(Failure.BAD_RESPONSE);
      return;
    }
    release(Outcome.FAILED);
    fail(responseTimedOut ? Failure.RESPONSE_TIMEOUT : uploadStalled ? Failure.UPLOAD_STALLED : Failure.BAD_RESPONSE);
  }

  /**
   * A pooled keep-alive connection that the backend had closed while idle: the request died with
   * the connection (closed or reset) before any response. A request without a body and with an
   * idempotent method is then safe to send again, and must not turn into a client error.
   */
  private boolean staleConnection(Upstream u) {
    return u.reused && !responseTimedOut && !uploadStalled && !informational
        && (u.cause == null || u.cause instanceof IOException) && !hasBody && isIdempotent(method);
  }

  /**
   * Retries once, never on the backend that just failed and always on a new connection (a pooled
   * one could be just as stale); {@code otherwise} if that is not possible.
   */
  private void retryElsewhere(Failure otherwise) {
    Endpoint failed = endpoint();
    long now = System.nanoTime();
    if (!retried && table.acquireExcept(route.slots(), this, now, failed) == Admission.GRANTED) {
      retried = true;
      meters.retries().increment();
      connect(endpoint(), true, now);
      return;
    }
    fail(otherwise);
  }

  /** The backend stopped reading the body: give it {@code uploadIdleMs}, then give up (504). */
  private void armUploadTimer() {
    cancelUploadTimer();
    uploadTimer = conn.channel().eventLoop().schedule(() -> {
      uploadTimer = null;
      if (!done && upstream != null) {
        uploadStalled = true;
        upstream.channel().close();
      }
    }, route.timeouts().uploadIdleMs(), TimeUnit.MILLISECONDS);
  }

  private void cancelUploadTimer() {
    if (uploadTimer != null) {
      uploadTimer.cancel(false);
      uploadTimer = null;
    }
  }

  /**
   * A deadline of {@link ResponseDeadlines} passed: before the response head, no response headers
   * within {@code responseMs} (give up on the backend: 504); after it, the client held the response
   * back for {@code slowClientMs}.
   */
  void onResponseTimeout() {
    if (responseStarted) {
      onSlowClient();
      return;
    }
    if (upstream != null && !done) {
      responseTimedOut = true;
      upstream.channel().close();
    }
  }

  /**
   * The client's body turned out malformed (a bad chunk size, say) while being forwarded: the
   * backend's request is cut, never completed, and the client gets 400 (or an aborted stream if
   * its response had begun).
   */
  private void onBodyFault(Failure f) {
    if (done) {
      return;
    }
    if (requestEnded) {
      conn.closeWhenDone(); // a later pipelined request's body broke: this one finishes first
      return;
    }
    if (responseStarted) {
      abort(Outcome.ABORTED);
      return;
    }
    clientGone = true; // the backend side is given up as if the client had left
    if (waitTimer != null) {
      waitTimer.cancel(false);
      waitTimer = null;
      table.cancel(this); // if already granted, the grant sees clientGone and releases
    }
    dropUpstream();
    release(Outcome.ABORTED);
    fail(f);
  }

  /** The client connection closed. */
  void clientGone() {
    if (tunnelled) {
      closeTunnel();
      return;
    }
    if (done) {
      return;
    }
    clientGone = true;
    releasePending();
    if (waitTimer != null) {
      waitTimer.cancel(false);
      waitTimer = null;
      if (table.cancel(this)) {
        done = true;
        finish(0);
        return;
      }
      return; // granted meanwhile: the grant sees clientGone and releases
    }
    if (upstream != null) {
      dropUpstream();
      done = true;
      release(Outcome.ABORTED);
      finish(0);
    }
    // otherwise connecting: onConnect sees clientGone
  }

  private void endClientMeter() {
    if (clientMeter != null) {
      clientMeter.reset();
      clientMeter = null;
    }
  }

  /** Closes the backend connection without hearing of it again. */
  private void dropUpstream() {
    endClientMeter();
    proxy.deadlines().disarm(this);
    cancelUploadTimer();
    Upstream u = upstream;
    upstream = null;
    if (u != null) {
      u.detach();
      u.channel().close();
    }
  }

  /** The backend died mid-body or the client's body broke: never end the client stream cleanly. */
  private void abort(Outcome outcome) {
    done = true;
    dropUpstream();
    releasePending();
    conn.reset();
    release(outcome);
    finish(0);
    conn.exchangeDone(this, true);
  }

  private void fail(Failure f) {
    done = true;
    releasePending();
    if (responseStarted) {
      abort(Outcome.FAILED);
      return;
    }
    status = f.status();
    boolean close = conn.respond(clientVersion, clientKeepAlive, f, route.waitTimeoutMs(), hasBody && !requestEnded);
    bytesOut = f.reason().length() + 1;
    finish(status);
    conn.exchangeDone(this, close);
  }

  private void releasePending() {
    if (pending != null) {
      pending.forEach(HttpContent::release);
      pending.clear();
    }
  }

  private void release(Outcome outcome) {
    release(outcome, System.nanoTime());
  }

  /** @param now {@code System.nanoTime()}, read once by the caller */
  private void release(Outcome outcome, long now) {
    if (endpoint() == null) {
      return;
    }
    long latency = slotNanos == 0 ? 0 : now - slotNanos; // 0: released before any backend was tried
    if (table.release(this, now, latency, outcome == Outcome.FAILED) && outcome != Outcome.ABORTED) {
      proxy.tally().record(endpoint().id(), latency, outcome == Outcome.FAILED, loadReport);
      proxy.metrics().backend(endpoint().id()).record(backendStatus, latency);
    }
  }

  /**
   * The exchange is over: lets go of the client connection's guard, ends the Vert.x meters and
   * writes one access-log line, when the log is on; status 0 means the connection was cut.
   */
  private void finish(int finalStatus) {
    finish(finalStatus, System.nanoTime());
  }

  /** @param now {@code System.nanoTime()}, read once by the caller */
  private void finish(int finalStatus, long now) {
    proxy.deadlines().disarm(this);
    if (logged) {
      return;
    }
    logged = true;
    conn.releaseBodyFault(bodyFaultHandler);
    if (backendHead != null) {
      backendHead.release();
      backendHead = null;
    }
    if (serverMeter != null) {
      serverMeter.requestBytes(bytesIn);
      if (finalStatus == 0) {
        serverMeter.reset();
      } else {
        serverMeter.end(finalStatus, now - startNanos, bytesOut);
      }
    }
    AccessLog log = proxy.accessLog();
    if (log == null) {
      return;
    }
    Endpoint e = endpoint();
    String referer = null;
    String userAgent = null;
    if (log.wantsAgent()) {
      referer = raw != null ? raw.field("referer") : req.headers().get(HttpHeaderNames.REFERER);
      userAgent = raw != null ? raw.field("user-agent") : req.headers().get(HttpHeaderNames.USER_AGENT);
    }
    String version = conn.multiplexed() ? "HTTP/2.0" : clientVersion.text();
    log.log(method.name(), raw != null ? raw.uri() : req.uri(), version, referer, userAgent, conn.remote(),
        route.service(), e == null ? "-" : e.id(), finalStatus, bytesOut, startNanos, e == null ? 0 : slotNanos,
        waitNanos, now);
  }
}
