package dev.fairway.proxy.exchange;

import dev.fairway.config.HeaderEdit;
import dev.fairway.grpc.GrpcStatus;
import dev.fairway.proxy.upstream.Upstream;
import dev.fairway.proxy.wire.Failure;
import dev.fairway.proxy.wire.FieldEdits;
import dev.fairway.proxy.wire.ForwardingRules;
import dev.fairway.proxy.wire.H2Rules;
import dev.fairway.proxy.wire.Headers;
import dev.fairway.proxy.wire.RawBody;
import dev.fairway.proxy.wire.RawResponse;
import dev.fairway.proxy.wire.RequestId;
import dev.fairway.proxy.wire.Rejection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;

/**
 * Carries a backend's response to the client: the head turned into the client's (by the
 * {@link ForwardingRules}, plus the framing and {@code Connection} the client's protocol needs),
 * then the body as it comes, read from the backend no faster than the client takes it.
 *
 * <p>Example: an HTTP/1.0 client's request answered by a chunked {@code 200} gets a head without
 * {@code Transfer-Encoding} and with {@code Connection: close}: the body runs to the connection's
 * end. A {@code 103 Early Hints} goes to an HTTP/1.1 client before the final head; a
 * {@code 101} nobody asked for is a bad response (502). The service's {@code responseHeaders}
 * edit the final head after those rules; 1xx heads and Fairway's own answers are left as they are.
 */
final class ResponseRelay {
  private static final String GRPC_STATUS = "grpc-status";
  private static final AsciiString REQUEST_ID = AsciiString.cached(RequestId.HEADER);
  private final Exchange x;
  private final HttpVersion clientVersion;
  private final boolean clientKeepAlive;
  private final boolean headRequest;
  /** A 1xx head came: its (empty) end is not the response's. */
  private boolean informational;
  private boolean closeClient;

  ResponseRelay(Exchange x, HttpVersion clientVersion, boolean clientKeepAlive, boolean headRequest) {
    this.x = x;
    this.clientVersion = clientVersion;
    this.clientKeepAlive = clientKeepAlive;
    this.headRequest = headRequest;
  }

  /** The client's connection closes after this response. */
  boolean closeClient() {
    return closeClient;
  }

  /** HTTP/1.0 or HTTP/1.1: what the client spoke. */
  HttpVersion clientVersion() {
    return clientVersion;
  }

  boolean clientKeepAlive() {
    return clientKeepAlive;
  }

  /** A 1xx head was the last thing the backend sent. */
  boolean informational() {
    return informational;
  }

  /** Something the backend sent before the exchange switched protocols. */
  void fromUpstream(Object msg) {
    if (msg instanceof RawBody b) {
      onRawBody(b);
      return;
    }
    if (msg instanceof RawResponse r) {
      onRawResponse(r);
      return;
    }
    if (msg instanceof Http2HeadersFrame f) {
      onStreamHeaders(f.headers(), f.isEndStream());
      return;
    }
    if (msg instanceof HttpResponse r && onResponseHead(r)) {
      return;
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
    if (FailedTry.answered(x, r.status(), r.retryAfter())) {
      return;
    }
    closeClient = !clientKeepAlive || x.draining();
    boolean bodyless = r.bodyLength() == 0;
    r.requestId(x.requestId);
    HeaderEdit edit = x.route.headers().response();
    if (!edit.isEmpty()) {
      r.edit(edit);
    }
    Object head = x.conn.rawHead(r, clientVersion == HttpVersion.HTTP_1_0, closeClient, bodyless);
    x.responseBegins(r.status(), r.retryAfter(), r.loadReport(), r.lameDuck(), r.keepAlive());
    grpcStatus(r.grpcStatus());
    if (bodyless) {
      x.endResponse(true, head);
    } else {
      x.conn.writeRaw(head);
    }
  }

  /** A part of a {@link RawResponse}'s body, passed to the client as it is. */
  private void onRawBody(RawBody b) {
    ByteBuf content = b.content();
    x.record.bytesOut += content.readableBytes();
    if (!b.last()) {
      x.conn.writeRaw(x.conn.rawBody(content, false));
      if (!x.conn.writable()) {
        clientHoldsBack();
      }
      return;
    }
    x.endResponse(true, x.conn.rawBody(content, true));
  }

  /**
   * A response head; a whole response from an HTTP/2 backend (a HEADERS frame that ends the
   * stream, such as gRPC's trailers-only error) is relayed whole, as one message.
   *
   * @return whether {@code r} was the whole response and is relayed (no body part follows in it)
   */
  private boolean onResponseHead(HttpResponse r) {
    Upstream u = x.upstream();
    if (r.decoderResult().isFailure()) {
      u.fail(r.decoderResult().cause());
      return false;
    }
    int code = r.status().code();
    if (code == 101) {
      if (x.request.upgradeTo() != null) {
        x.tunnel(r);
      } else {
        u.fail(new Rejection(Failure.BAD_RESPONSE)); // switching protocols nobody asked for: 502
      }
      return false;
    }
    if (code < 200) {
      informational = true;
      relayInformational(r);
      return false;
    }
    if (FailedTry.answered(x, code, r.headers().contains(HttpHeaderNames.RETRY_AFTER))) {
      ReferenceCountUtil.release(r);
      return true;
    }
    x.requestRelay.dropReplay(); // answered: processed, never sent again
    HttpHeaders h = r.headers();
    x.responseBegins(code, h.contains(HttpHeaderNames.RETRY_AFTER), ForwardingRules.loadReport(h.get(ForwardingRules.LOAD_METRICS),
        h.get(ForwardingRules.LOAD_METRICS_BIN)), "true".equalsIgnoreCase(h.get(ForwardingRules.LAME_DUCK)), HttpUtil.isKeepAlive(r));
    grpcStatus(GrpcStatus.parseCode(h.get(GRPC_STATUS)));
    boolean framed = h.contains(HttpHeaderNames.CONTENT_LENGTH);
    Headers.toClient(h);
    h.set(RequestId.HEADER, x.requestId);
    HeaderEdit edit = x.route.headers().response();
    if (!edit.isEmpty()) {
      FieldEdits.apply(h, edit);
    }
    HttpVersion version = clientVersion;
    r.setProtocolVersion(version);
    closeClient = !clientKeepAlive || x.draining();
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
    if (r instanceof FullHttpResponse whole) {
      x.record.bytesOut += whole.content().readableBytes();
      ForwardingRules.trailers(whole.trailingHeaders());
      x.endResponse(false, whole);
      return true;
    }
    x.conn.write(r);
    return false;
  }

  /**
   * An HTTP/2 backend's head or trailers for an HTTP/2 client: the block is edited into the
   * client's in place ({@link H2Rules}) and sent as it is, as {@link #onResponseHead} and
   * {@link #onResponseContent} do with decoded ones. A 1xx is not relayed (no stream gets one); a
   * block without {@code :status} ends the stream: the trailers.
   */
  private void onStreamHeaders(Http2Headers h, boolean end) {
    CharSequence status = h.status();
    if (status == null) {
      if (x.responding()) {
        grpcStatus(GrpcStatus.parseCode(h.get(GRPC_STATUS)));
        trailerSignals(loadReport(h), lameDuck(h));
        H2Rules.trailers(h);
        x.endResponse(true, x.conn.streamHead(h, true));
      }
      return;
    }
    int code = AsciiString.of(status).parseInt();
    if (code < 200) {
      return;
    }
    boolean retryAfter = h.contains(HttpHeaderNames.RETRY_AFTER);
    if (FailedTry.answered(x, code, retryAfter)) {
      return;
    }
    x.requestRelay.dropReplay();
    x.responseBegins(code, retryAfter, loadReport(h), lameDuck(h), true);
    grpcStatus(GrpcStatus.parseCode(h.get(GRPC_STATUS)));
    H2Rules.toClient(h);
    h.set(REQUEST_ID, x.requestId);
    HeaderEdit edit = x.route.headers().response();
    if (!edit.isEmpty()) {
      FieldEdits.apply(h, edit);
    }
    closeClient = !clientKeepAlive || x.draining();
    if (end) {
      x.endResponse(true, x.conn.streamHead(h, true));
    } else {
      x.conn.writeRaw(x.conn.streamHead(h, false));
    }
  }

  private static String loadReport(Http2Headers h) {
    CharSequence text = h.get(ForwardingRules.LOAD_METRICS);
    CharSequence binary = h.get(ForwardingRules.LOAD_METRICS_BIN);
    return text == null && binary == null ? null
        : ForwardingRules.loadReport(text == null ? null : text.toString(), binary == null ? null : binary.toString());
  }

  private static boolean lameDuck(Http2Headers h) {
    CharSequence v = h.get(ForwardingRules.LAME_DUCK);
    return v != null && AsciiString.contentEqualsIgnoreCase(v, "true");
  }

  /**
   * Relays a 1xx interim response such as {@code 103 Early Hints} to an HTTP/1.1 client, minus
   * hop-by-hop fields. {@code 100 Continue} is not relayed: Fairway answers {@code Expect} itself
   * and does not forward it. HTTP/1.0 clients get none (RFC 9110 §15.2), nor do HTTP/2 streams.
   */
  private void relayInformational(HttpResponse r) {
    if (r.status().code() == 100 || clientVersion != HttpVersion.HTTP_1_1 || x.conn.multiplexed()) {
      return;
    }
    Headers.toClient(r.headers());
    x.conn.write(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, r.status(), Unpooled.EMPTY_BUFFER, r.headers(),
        EmptyHttpHeaders.INSTANCE));
  }

  private void onResponseContent(HttpContent c) {
    if (c.decoderResult().isFailure()) {
      c.release(); // never an end: the client's stream is cut (the connection's close aborts it)
      x.upstream().fail(c.decoderResult().cause());
      return;
    }
    boolean last = c instanceof LastHttpContent;
    if (informational || !x.responding()) {
      c.release();
      if (last) {
        informational = false;
      }
      return;
    }
    x.record.bytesOut += c.content().readableBytes();
    if (!last) {
      x.conn.write(c);
      if (!x.conn.writable()) {
        clientHoldsBack();
      }
      return;
    }
    trailers(((LastHttpContent) c).trailingHeaders());
    x.endResponse(false, c);
  }

  /**
   * The backend's trailers, before they go to the client: what they say (a gRPC server's
   * {@code grpc-status}, a load report, a lame duck's signal) is noted as if it had come in the
   * head, and the fields that must never be trailers (those signals included) are dropped.
   */
  private void trailers(HttpHeaders t) {
    if (!t.isEmpty()) {
      grpcStatus(GrpcStatus.parseCode(t.get(GRPC_STATUS)));
      trailerSignals(ForwardingRules.loadReport(t.get(ForwardingRules.LOAD_METRICS), t.get(ForwardingRules.LOAD_METRICS_BIN)),
          "true".equalsIgnoreCase(t.get(ForwardingRules.LAME_DUCK)));
      ForwardingRules.trailers(t);
    }
  }

  /**
   * The backend's answer carries {@code grpc-status: code} (in its head, for a trailers-only
   * answer, or in its trailers, before the response ends); a code in the service's
   * {@code grpc.errorCodes} makes it the backend's failure although HTTP said 200.
   */
  private void grpcStatus(int code) {
    x.record.grpcStatus = code;
    if (x.route.grpcErrors().isError(code)) {
      x.record.grpcFailed = true;
    }
  }

  /**
   * The backend's trailers carry a load report (gRPC servers send ORCA there) or a lame duck's
   * signal: the report replaces the head's, and the signal is acted on at once.
   */
  private void trailerSignals(String report, boolean lameDuck) {
    if (report != null) {
      x.record.loadReport = report;
    }
    if (lameDuck) {
      x.ctx.lameDuck().accept(x.endpoint());
    }
  }

  /**
   * The client's connection is full: the backend is read no further until it drains, and if that
   * takes {@code slowClientMs} the slot goes back ({@link Exchange#onResponseTimeout}).
   */
  void clientHoldsBack() {
    x.upstream().autoRead(false);
    long ms = x.route.timeouts().slowClientMs();
    if (ms >= 0 && !x.slotGivenBack() && !x.ctx.deadlines().armed(x)) {
      x.ctx.deadlines().arm(x, System.nanoTime() + ms * 1_000_000L);
    }
  }

  /** The client's connection can take more: read the backend {@code u} again. */
  void clientWritable(Upstream u, boolean responding) {
    if (responding) {
      x.ctx.deadlines().disarm(x);
    }
    u.autoRead(true);
  }
}
