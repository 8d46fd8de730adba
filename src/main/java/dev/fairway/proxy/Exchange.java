package dev.fairway.proxy;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.Route;
import dev.fairway.metrics.ServiceMeters;
import dev.fairway.slots.Admission;
import dev.fairway.slots.SlotTable;
import dev.fairway.slots.Waiter;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.NetSocket;
import java.io.IOException;
import io.vertx.core.net.impl.ConnectionBase;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One client request on its way through the proxy: take a slot (or wait for one), connect,
 * stream the request and the response with back-pressure, release the slot exactly once.
 *
 * <p>Example: {@code GET /} routed to a service whose backends are all full waits up to
 * {@code waitTimeoutMs}; granted b2 it connects to b2, and when the last byte of b2's answer is
 * written to the client the slot goes back to the table (or straight to the next waiter).
 *
 * <p>Everything but {@link #granted} runs on the proxy verticle's event loop.
 */
final class Exchange extends Waiter {
  private final ProxyVerticle proxy;
  private final HttpServerRequest req;
  private final HttpServerResponse resp;
  private final Route route;
  private final SlotTable table;
  private final ServiceMeters meters;
  private final Context context;
  private final long startNanos;

  private long waitTimer = -1;
  /** Links and deadline in the verticle's {@link ResponseDeadlines}. */
  Exchange prevArmed;
  Exchange nextArmed;
  long deadlineNanos;
  boolean armed;
  private long slotNanos;
  private HttpClientRequest backendReq;
  private boolean retried;
  private boolean reusedConnection;
  private boolean responseTimedOut;
  private boolean clientGone;
  private boolean done;
  private boolean logged;
  private int backendStatus;
  private long waitNanos;
  private boolean uploadStalled;
  private long uploadTimer = -1;
  private String loadReport;
  private final Consumer<Failure> bodyFaultHandler = this::onBodyFault;
  /** The client connection's guard, looked up once; {@code null} for a refused connection. */
  private FramingGuard clientGuard;

  /** How an exchange ended, as far as the backend's record is concerned. */
  private enum Outcome { OK, FAILED, ABORTED }

  Exchange(ProxyVerticle proxy, HttpServerRequest req, Route route, SlotTable table, ServiceMeters meters,
           Context context) {
    this.meters = meters;
    this.proxy = proxy;
    this.req = req;
    this.resp = req.response();
    this.route = route;
    this.table = table;
    this.context = context;
    this.startNanos = System.nanoTime();
  }

  void start() {
    req.pause();
    resp.closeHandler(v -> onClientGone());
    clientGuard = proxy.guard(req.connection());
    if (clientGuard != null) {
      clientGuard.bodyFault(bodyFaultHandler);
    }
    Admission a = table.acquire(route.slots(), this, startNanos, proxy.lane());
    switch (a) {
      case GRANTED -> connect(endpoint());
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
    if (route.waitTimeoutMs() == 0) {
      onWaitTimeout();
      return;
    }
    waitTimer = vertx().setTimer(route.waitTimeoutMs(), id -> onWaitTimeout());
  }

  private void onWaitTimeout() {
    waitTimer = -1;
    if (table.cancel(this)) {
      meters.slotTimeouts().increment();
      meters.slotWait().record(System.nanoTime() - enqueuedNanos(), TimeUnit.NANOSECONDS);
      fail(Failure.SLOT_TIMEOUT);
    }
  }

  @Override
  protected void granted(Endpoint endpoint) {
    context.runOnContext(v -> {
      if (waitTimer >= 0) {
        vertx().cancelTimer(waitTimer);
        waitTimer = -1;
      }
      waitNanos = System.nanoTime() - enqueuedNanos();
      meters.slotWait().record(waitNanos, TimeUnit.NANOSECONDS);
      if (clientGone) {
        release(Outcome.ABORTED);
      } else {
        connect(endpoint);
      }
    });
  }

  private void connect(Endpoint e) {
    connect(e, false);
  }

  /** @param fresh on a new connection, never a pooled one (retry after a stale keep-alive one) */
  private void connect(Endpoint e, boolean fresh) {
    slotNanos = System.nanoTime();
    RequestOptions options = new RequestOptions()
        .setHost(e.host())
        .setPort(e.port())
        .setMethod(req.method())
        .setURI(req.uri())
        .setConnectTimeout(route.timeouts().connectMs());
    (fresh ? proxy.freshClient() : proxy.client()).request(options).onComplete(this::onConnected);
  }

  private void onConnected(AsyncResult<HttpClientRequest> ar) {
    if (ar.failed()) {
      onConnectFailed();
      return;
    }
    HttpClientRequest creq = ar.result();
    if (clientGone) {
      creq.reset();
      release(Outcome.ABORTED);
      return;
    }
    backendReq = creq;
    guardResponses(creq);
    Headers.toBackend(req, creq.headers(), proxy.limits());
    if (req.authority() != null) {
      creq.authority(req.authority());
    }
    creq.response().onComplete(this::onResponse);
    if (isUpgrade(req)) {
      creq.putHeader(HttpHeaders.UPGRADE, req.getHeader(HttpHeaders.UPGRADE));
      creq.putHeader(HttpHeaders.CONNECTION, HttpHeaders.UPGRADE);
      creq.connect();
      armResponseTimer();
    } else if (hasBody(req)) {
      if (!creq.headers().contains(HttpHeaders.CONTENT_LENGTH)) {
        creq.setChunked(true);
      }
      streamRequestBody(creq);
    } else {
      creq.end();
      req.resume();
      armResponseTimer();
    }
  }

  /**
   * Puts a {@link FramingGuard} in front of a new backend connection's decoder, and tells the
   * connection's guard whether the response will answer a {@code HEAD}. Notes whether the
   * connection is a pooled one that carried requests before.
   */
  private void guardResponses(HttpClientRequest creq) {
    HttpConnection connection = creq.connection();
    FramingGuard guard = proxy.reused(connection);
    reusedConnection = guard != null || proxy.seen(connection);
    if (!reusedConnection) {
      guard = newGuard(connection);
      proxy.firstUse(connection, guard);
    }
    if (guard != null) {
      guard.expectResponseTo(req.method() == HttpMethod.HEAD);
    }
  }

  private static FramingGuard newGuard(HttpConnection connection) {
    if (!(connection instanceof ConnectionBase c)) {
      return null;
    }
    ChannelPipeline pipeline = c.channelHandlerContext().pipeline();
    FramingGuard guard = (FramingGuard) pipeline.get(FramingGuard.NAME);
    if (guard == null && pipeline.get("codec") != null) {
      guard = FramingGuard.forResponses();
      pipeline.addBefore("codec", FramingGuard.NAME, guard);
    }
    return guard;
  }

  /**
   * The client's body turned out malformed (a bad chunk size, say) while being forwarded: the
   * backend's request is reset, never completed, and the client gets 400 (or an aborted stream if
   * its response had begun).
   */
  private void onBodyFault(Failure f) {
    if (done) {
      return;
    }
    if (resp.headWritten()) {
      abort();
      return;
    }
    onClientGone();
    proxy.respond(req, f, 0);
  }

  /** Whether the request carries a body (RFC 9112 §6.3: only a framing header says so). */
  static boolean hasBody(HttpServerRequest req) {
    String te = req.getHeader(HttpHeaders.TRANSFER_ENCODING);
    if (te != null) {
      return true;
    }
    String cl = req.getHeader(HttpHeaders.CONTENT_LENGTH);
    return cl != null && !cl.equals("0");
  }

  private void onConnectFailed() {
    release(Outcome.FAILED);
    if (!clientGone) {
      retryElsewhere(Failure.CONNECT_FAILED);
    }
  }

  /**
   * A pooled keep-alive connection that the backend had closed while idle: the request died with
   * the connection (closed or reset) before any response byte. A request without a body and with
   * an idempotent method is then safe to send again, and must not turn into a client error.
   */
  private boolean staleConnection(Throwable cause) {
    return reusedConnection && (cause instanceof HttpClosedException || cause instanceof IOException)
        && !hasBody(req) && isIdempotent(req.method());
  }

  private static boolean isIdempotent(HttpMethod m) {
    return m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS || m == HttpMethod.TRACE
        || m == HttpMethod.PUT || m == HttpMethod.DELETE;
  }

  /**
   * Retries once, never on the backend that just failed and always on a new connection (a pooled
   * one could be just as stale); {@code otherwise} if that is not possible.
   */
  private void retryElsewhere(Failure otherwise) {
    Endpoint failed = endpoint();
    if (!retried && table.acquireExcept(route.slots(), this, System.nanoTime(), failed) == Admission.GRANTED) {
      retried = true;
      backendReq = null;
      meters.retries().increment();
      connect(endpoint(), true);
      return;
    }
    fail(otherwise);
  }

  /** A bodiless {@code GET} asking to switch protocols ({@code Upgrade}, e.g. WebSocket). */
  static boolean isUpgrade(HttpServerRequest req) {
    String connection = req.getHeader(HttpHeaders.CONNECTION);
    return req.method() == HttpMethod.GET && req.getHeader(HttpHeaders.UPGRADE) != null && connection != null
        && Headers.listedIn(Headers.connectionValue(req.headers()), "upgrade")
        && !hasBody(req);
  }

  /**
   * The backend switched protocols: relay its {@code 101} and then the raw bytes both ways. The
   * slot stays taken while the tunnel is open and is released once, when either side closes.
   */
  private void tunnel(HttpClientResponse bresp) {
    done = true;
    NetSocket backend = bresp.netSocket();
    resp.setStatusCode(101);
    bresp.headers().forEach(h -> {
      if (!h.getKey().equalsIgnoreCase(Headers.LAME_DUCK) && !h.getKey().equalsIgnoreCase(Headers.LOAD_METRICS)) {
        resp.headers().add(h.getKey(), h.getValue());
      }
    });
    if (clientGuard != null) {
      clientGuard.tunnel();
    }
    req.toNetSocket().onComplete(ar -> {
      if (ar.failed()) {
        backend.close();
        release(Outcome.FAILED);
        finish(0);
        return;
      }
      NetSocket client = ar.result();
      client.pipeTo(backend);
      backend.pipeTo(client);
      client.closeHandler(v -> {
        backend.close();
        closeTunnel();
      });
      backend.closeHandler(v -> {
        client.close();
        closeTunnel();
      });
    });
  }

  private void closeTunnel() {
    release(Outcome.OK);
    finish(101);
  }

  /** Streams the client's body to the backend, pausing the client while the backend is slow. */
  private void streamRequestBody(HttpClientRequest creq) {
    req.handler(buf -> {
      creq.write(buf);
      if (creq.writeQueueFull()) {
        req.pause();
        armUploadTimer();
        creq.drainHandler(v -> {
          cancelUploadTimer();
          req.resume();
        });
      }
    });
    req.exceptionHandler(e -> creq.reset());
    req.endHandler(v -> {
      cancelUploadTimer();
      creq.end();
      armResponseTimer();
    });
    req.resume();
  }

  /** The backend stopped reading the body: give it {@code uploadIdleMs}, then give up (504). */
  private void armUploadTimer() {
    cancelUploadTimer();
    uploadTimer = vertx().setTimer(route.timeouts().uploadIdleMs(), id -> {
      uploadTimer = -1;
      if (!done && backendReq != null) {
        uploadStalled = true;
        backendReq.reset();
      }
    });
  }

  private void cancelUploadTimer() {
    if (uploadTimer >= 0) {
      vertx().cancelTimer(uploadTimer);
      uploadTimer = -1;
    }
  }

  private void armResponseTimer() {
    if (done || backendReq == null || armed) {
      return;
    }
    proxy.deadlines().arm(this, System.nanoTime() + route.timeouts().responseMs() * 1_000_000L);
  }

  private void cancelResponseTimer() {
    proxy.deadlines().disarm(this);
  }

  /** No response headers within {@code responseMs}: give up on the backend (the result is 504). */
  void onResponseTimeout() {
    responseTimedOut = true;
    backendReq.reset();
  }

  private void onResponse(AsyncResult<HttpClientResponse> ar) {
    cancelResponseTimer();
    cancelUploadTimer();
    if (ar.failed()) {
      if (!clientGone && !responseTimedOut && staleConnection(ar.cause())) {
        release(Outcome.ABORTED);
        retryElsewhere(Failure.BAD_RESPONSE);
        return;
      }
      release(clientGone ? Outcome.ABORTED : Outcome.FAILED);
      if (!clientGone) {
        fail(responseTimedOut ? Failure.RESPONSE_TIMEOUT
            : uploadStalled ? Failure.UPLOAD_STALLED : Failure.BAD_RESPONSE);
      }
      return;
    }
    HttpClientResponse bresp = ar.result();
    backendStatus = bresp.statusCode();
    if (clientGone) {
      backendReq.reset();
      release(Outcome.ABORTED);
      return;
    }
    if (backendStatus == 101 && isUpgrade(req)) {
      tunnel(bresp);
      return;
    }
    loadReport = bresp.getHeader(Headers.LOAD_METRICS);
    if ("true".equalsIgnoreCase(bresp.getHeader(Headers.LAME_DUCK))) {
      proxy.lameDuckSignal(endpoint());
    }
    resp.setStatusCode(bresp.statusCode());
    String reason = bresp.statusMessage();
    if (reason != null && !reason.equals(HttpResponseStatus.valueOf(backendStatus).reasonPhrase())) {
      resp.setStatusMessage(reason); // only an unusual reason: the usual one is a cached constant
    }
    Headers.toClient(bresp.headers(), resp.headers());
    if (!resp.headers().contains(HttpHeaders.CONTENT_LENGTH)) {
      resp.setChunked(true);
    }
    Outcome outcome = bresp.statusCode() >= 500 ? Outcome.FAILED : Outcome.OK;
    streamResponseBody(bresp, outcome);
  }

  /**
   * Streams the backend's body to the client, pausing the backend while the client is slow. A
   * failure of either side aborts the client connection: never a clean end.
   */
  private void streamResponseBody(HttpClientResponse bresp, Outcome outcome) {
    bresp.handler(buf -> {
      resp.write(buf);
      if (resp.writeQueueFull()) {
        bresp.pause();
        resp.drainHandler(v -> bresp.resume());
      }
    });
    bresp.exceptionHandler(e -> abort());
    bresp.endHandler(v -> {
      if (done) {
        return;
      }
      done = true;
      resp.end();
      release(outcome);
      finish(resp.getStatusCode());
    });
  }

  /** The backend died mid-body or the client went away: never end the client stream cleanly. */
  private void abort() {
    if (done) {
      return;
    }
    if (backendReq != null) {
      backendReq.reset();
    }
    cancelUploadTimer();
    done = true;
    resp.reset();
    release(clientGone ? Outcome.ABORTED : Outcome.FAILED);
    finish(0);
  }

  private void onClientGone() {
    if (done) {
      return;
    }
    clientGone = true;
    if (waitTimer >= 0) {
      vertx().cancelTimer(waitTimer);
      waitTimer = -1;
      if (table.cancel(this)) {
        done = true;
        finish(0);
        return;
      }
    }
    if (backendReq != null) {
      cancelResponseTimer();
      cancelUploadTimer();
      backendReq.reset();
    }
  }

  private void fail(Failure f) {
    done = true;
    proxy.respond(req, f, route.waitTimeoutMs());
    finish(f.status());
  }

  private void release(Outcome outcome) {
    long now = System.nanoTime();
    long latency = now - slotNanos;
    if (table.release(this, now, latency, outcome == Outcome.FAILED) && outcome != Outcome.ABORTED) {
      proxy.tally().record(endpoint().id(), latency, outcome == Outcome.FAILED, loadReport);
      proxy.metrics().backend(endpoint().id()).record(backendStatus, latency);
    }
    if (clientGone) {
      finish(0);
    }
  }

  /**
   * The exchange is over: lets go of the client connection's guard and writes one access-log
   * line, when the log is on; status 0 means the connection was cut.
   */
  private void finish(int status) {
    if (logged) {
      return;
    }
    logged = true;
    if (clientGuard != null) {
      clientGuard.releaseBodyFault(bodyFaultHandler);
    }
    AccessLog log = proxy.accessLog();
    if (log == null) {
      return;
    }
    Endpoint e = endpoint();
    log.log(req, route.service(), e == null ? "-" : e.id(), status, startNanos, e == null ? 0 : slotNanos, waitNanos);
  }

  private Vertx vertx() {
    return context.owner();
  }
}
