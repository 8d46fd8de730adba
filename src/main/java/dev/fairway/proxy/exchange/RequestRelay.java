package dev.fairway.proxy.exchange;

import dev.fairway.proxy.upstream.Upstream;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.proxy.wire.ForwardingRules;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Carries a client's request to the backend: the head, then the body as it comes, read no faster
 * than the backend takes it, and gives up on a backend that stops reading for
 * {@code uploadIdleMs}.
 *
 * <p>Example: a {@code PUT} of 1 MiB whose first 64 KiB arrive before the backend connection is
 * ready keeps them in {@link #pending}; {@link #send} writes the head and those parts, and from
 * then on each part goes straight through; when the backend's socket is full the client's
 * connection is paused until it drains. What goes to an HTTP/2 stream is also kept (up to
 * {@link #REPLAY_LIMIT}) until the response begins: a stream the backend provably did not process
 * is sent again elsewhere whole ({@link #rewind}).
 */
final class RequestRelay implements Consumer<Failure> {
  /** The most of a body kept for sending again (gRPC unary calls are usually far smaller). */
  static final int REPLAY_LIMIT = 64 * 1024;
  private final Exchange x;
  /** Body parts that came before the backend connection was ready. */
  private ArrayDeque<HttpContent> pending;
  /** Copies of the body parts sent to an HTTP/2 stream, while the response has not begun. */
  private ArrayDeque<HttpContent> replay;
  private int replayBytes;
  /** More body went to the stream than {@link #REPLAY_LIMIT}, or the response began: no replay. */
  private boolean replayLost;
  /** The body is kept on HTTP/1.1 connections too: the service retries requests a backend may have acted on. */
  private boolean keepOnConnections;
  private ScheduledFuture<?> uploadTimer;
  /** The request's last part came from the client. */
  private boolean ended;
  /** The request's last part went to the backend. */
  private boolean sent;
  /** The backend stopped reading the body for {@code uploadIdleMs}. */
  private boolean stalled;

  RequestRelay(Exchange x, boolean endedWithHead) {
    this.x = x;
    this.ended = endedWithHead;
  }

  /** The client's body turned out malformed while being forwarded (told by the framing guard). */
  @Override
  public void accept(Failure f) {
    x.onBodyFault(f);
  }

  boolean ended() {
    return ended;
  }

  boolean sent() {
    return sent;
  }

  boolean stalled() {
    return stalled;
  }

  /**
   * Writes the backend's head, and whatever of the body came already, to {@code u}.
   *
   * @param nowNanos {@code System.nanoTime()}, read once by the caller
   */
  void send(Upstream u, long nowNanos) {
    if (u.sendHead(x.request)) {
      sentAll(nowNanos);
      return;
    }
    if (pending != null) {
      HttpContent c;
      while ((c = pending.poll()) != null) {
        keep(u, c);
        u.write(c);
      }
    }
    u.flush();
    if (ended) {
      sentAll(nowNanos);
      return;
    }
    if (x.request.expectContinue()) {
      x.conn.writeRaw(x.conn.continueMessage());
      x.conn.flush();
    }
    if (!u.writable()) {
      x.conn.pause(ReadPauses.UPSTREAM);
      armUploadTimer();
    }
    x.conn.resume(ReadPauses.AWAIT);
  }

  /** A part of the client's request body (or its end). */
  void fromClient(HttpContent c) {
    if (c.decoderResult().isFailure()) {
      c.release(); // never forwarded: the encoder would end the backend's request cleanly
      accept(Failure.MALFORMED_REQUEST);
      return;
    }
    boolean last = c instanceof LastHttpContent;
    if (last) {
      ended = true;
      ForwardingRules.trailers(((LastHttpContent) c).trailingHeaders());
    }
    if (x.over() || !x.request.hasBody()) {
      c.release();
      return;
    }
    x.record.bytesIn += c.content().readableBytes();
    Upstream u = x.upstream();
    if (u == null) {
      if (pending == null) {
        pending = new ArrayDeque<>(4);
      }
      pending.add(c);
      return;
    }
    keep(u, c);
    u.write(c);
    if (last) {
      sentAll(System.nanoTime());
    } else if (!u.writable()) {
      x.conn.pause(ReadPauses.UPSTREAM);
      armUploadTimer();
    }
  }

  /** @param nowNanos {@code System.nanoTime()} when the request's last byte was written */
  private void sentAll(long nowNanos) {
    sent = true;
    cancelUploadTimer();
    x.record.requestSent();
    x.awaitResponse(nowNanos);
  }

  /** The backend's connection can take more of the body. */
  void upstreamWritable() {
    if (!x.over()) {
      cancelUploadTimer();
      x.conn.resume(ReadPauses.UPSTREAM);
    }
  }

  /** The backend stopped reading the body: give it {@code uploadIdleMs}, then give up (504). */
  private void armUploadTimer() {
    cancelUploadTimer();
    uploadTimer = x.conn.channel().eventLoop().schedule(() -> {
      uploadTimer = null;
      Upstream u = x.upstream();
      if (!x.over() && u != null) {
        stalled = true;
        u.close();
      }
    }, x.route.timeouts().uploadIdleMs(), TimeUnit.MILLISECONDS);
  }

  void cancelUploadTimer() {
    if (uploadTimer != null) {
      uploadTimer.cancel(false);
      uploadTimer = null;
    }
  }

  /**
   * Keeps what is sent to HTTP/1.1 connections too, not only to HTTP/2 streams: the service may
   * retry this request after a reset or a 5xx ({@link RetryRules#keepsBody}).
   */
  void keepBody(boolean onConnections) {
    keepOnConnections = onConnections;
  }

  /** Keeps a copy of {@code c}, about to go to {@code u}, if that is a stream (or kept anyway) and the limit allows. */
  private void keep(Upstream u, HttpContent c) {
    if (!u.multiplexed() && !keepOnConnections || replayLost) {
      return;
    }
    replayBytes += c.content().readableBytes();
    if (replayBytes > REPLAY_LIMIT) {
      dropReplay();
      return;
    }
    if (replay == null) {
      replay = new ArrayDeque<>(4);
    }
    replay.add(c.retainedDuplicate());
  }

  /** Whether the body sent so far can be sent again (all of it was kept, or there is none). */
  boolean replayable() {
    return !x.request.hasBody() || !replayLost;
  }

  /** The response began (or the exchange is over): the kept copies go, and no replay is possible. */
  void dropReplay() {
    replayLost = true;
    if (replay != null) {
      replay.forEach(HttpContent::release);
      replay = null;
    }
  }

  /** The stream was not processed: what it was sent goes first to the next backend ({@link #send}). */
  void rewind() {
    if (replay != null) {
      if (pending != null) {
        replay.addAll(pending);
      }
      pending = replay;
      replay = null;
    }
    replayBytes = 0;
    sent = false;
    cancelUploadTimer();
    x.conn.resume(ReadPauses.UPSTREAM); // the lost stream's back-pressure is no more
  }

  /** Drops the body parts still held for a backend connection, and the kept copies. */
  void releasePending() {
    if (pending != null) {
      pending.forEach(HttpContent::release);
      pending.clear();
    }
    dropReplay();
  }
}
