package dev.fairway.proxy.wire;

import dev.fairway.config.HeaderEdit;
import dev.fairway.grpc.GrpcStatus;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * A client's request head as Netty's decoder built it: requests with a body, and upgrades. Its
 * header map is edited in place into the backend's and written through Netty's encoder.
 *
 * <p>Example: {@code POST /up HTTP/1.0} with {@code Content-Length: 5} and {@code Host: shop} has
 * {@link #hasBody} true and {@link #keepAlive} false; after {@link #toBackend} it is
 * {@code POST /up HTTP/1.1} with {@code Host: shop}, {@code Via: 1.1 fairway} and the
 * {@code X-Forwarded-*} fields, and {@link #writeTo} writes it without ending it: the body follows.
 */
public final class DecodedRequest implements ClientRequest {
  private static final String GRPC_TIMEOUT = "grpc-timeout";
  private final HttpRequest req;
  private final boolean hasBody;
  private final String upgradeTo;
  /** What the client's head said, before {@link #toBackend} turns it into the backend's. */
  private final HttpVersion version;
  private final boolean keepAlive;
  private final boolean expectContinue;
  /** The client's request target, kept when {@link #forwardTarget} changes the backend's. */
  private final String uri;
  private boolean prepared;
  /** The client's {@code te} listed {@code trailers} (read before the rules drop {@code te}). */
  private boolean teTrailers;
  /** The service's {@code requestHeaders} ({@link #editFields}); {@code null}: none. */
  private HeaderEdit edit;

  public DecodedRequest(HttpRequest req) {
    this.req = req;
    this.hasBody = hasBody(req.headers());
    this.upgradeTo = hasBody ? null : upgradeTo(req);
    this.version = req.protocolVersion();
    this.keepAlive = HttpUtil.isKeepAlive(req);
    this.expectContinue = HttpUtil.is100ContinueExpected(req);
    this.uri = req.uri();
  }

  /** Whether a request with these fields is a gRPC call ({@link ClientRequest#grpc}). */
  public static boolean grpc(HttpHeaders h) {
    return GrpcStatus.isGrpc(h.get(HttpHeaderNames.CONTENT_TYPE));
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
    if (req.method() != HttpMethod.GET || asked == null || !Headers.listedIn(Headers.connectionValue(h), HttpHeaderValues.UPGRADE)) {
      return null;
    }
    return Headers.withoutToken(asked, "h2c");
  }

  @Override
  public HttpMethod method() {
    return req.method();
  }

  @Override
  public String uri() {
    return uri;
  }

  @Override
  public void forwardTarget(String target) {
    req.setUri(target);
  }

  @Override
  public void editFields(HeaderEdit e) {
    edit = e;
  }

  @Override
  public HttpVersion version() {
    return version;
  }

  @Override
  public boolean keepAlive() {
    return keepAlive;
  }

  @Override
  public String host() {
    return req.headers().get(HttpHeaderNames.HOST);
  }

  @Override
  public String field(String lowerName) {
    return req.headers().get(lowerName);
  }

  @Override
  public boolean grpc() {
    return grpc(req.headers());
  }

  @Override
  public String grpcTimeout() {
    return req.headers().get(GRPC_TIMEOUT);
  }

  /** Edits the header map, which is the backend's head once {@link #toBackend} has run. */
  @Override
  public void forwardField(String lowerName, String value) {
    if (value == null) {
      req.headers().remove(lowerName);
    } else {
      req.headers().set(lowerName, value);
    }
  }

  @Override
  public boolean hasBody() {
    return hasBody;
  }

  @Override
  public boolean endsWithHead() {
    return false;
  }

  @Override
  public String upgradeTo() {
    return upgradeTo;
  }

  @Override
  public boolean expectContinue() {
    return expectContinue;
  }

  @Override
  public boolean hasUnderscoreName() {
    return Headers.hasUnderscoreName(req.headers());
  }

  @Override
  public void toBackend(String client, boolean tls, String authority, int trustedHops, String fallbackHost, String via,
                        ByteBufAllocator alloc) {
    HttpHeaders h = req.headers();
    if (prepared) {
      if (authority == null) {
        h.set(HttpHeaderNames.HOST, fallbackHost);
      }
      return;
    }
    prepared = true;
    boolean chunked = HttpUtil.isTransferEncodingChunked(req);
    teTrailers = ForwardingRules.teTrailers(h.get(HttpHeaderNames.TE));
    Headers.toBackend(h, client, tls, authority, trustedHops, via);
    if (edit != null) {
      FieldEdits.apply(h, edit);
    }
    h.set(HttpHeaderNames.HOST, authority != null ? authority : fallbackHost);
    if (chunked) {
      h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
    if (upgradeTo != null) {
      h.set(HttpHeaderNames.UPGRADE, upgradeTo);
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
    }
    req.setProtocolVersion(HttpVersion.HTTP_1_1);
  }

  @Override
  public boolean writeTo(Channel ch, ChannelHandlerContext wire) {
    ch.write(req);
    if (hasBody) {
      return false;
    }
    ch.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
    return true;
  }

  @Override
  public boolean writeToStream(StreamWriter stream) {
    if (teTrailers) {
      req.headers().set(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS);
    }
    stream.write(req);
    if (hasBody) {
      return false;
    }
    stream.write(LastHttpContent.EMPTY_LAST_CONTENT);
    stream.flush();
    return true;
  }

  @Override
  public void release() {
  }
}
