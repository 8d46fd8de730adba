package dev.fairway.proxy.wire;

import dev.fairway.config.HeaderEdit;
import dev.fairway.grpc.GrpcStatus;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * An HTTP/2 client's request with a body, as its header block came: the block is edited in place
 * into the backend's by the {@link ForwardingRules} and goes to an HTTP/2 backend as it is, with
 * no header map in between; an HTTP/1.1 backend gets it converted once ({@link H1Fields}), chunked
 * unless it gave {@code content-length}. The block must have passed {@code StreamHeads.check}.
 *
 * <p>Example: {@code :method POST, :path /p.S/Call, :scheme http, :authority shop,
 * content-type application/grpc, te trailers} from 10.0.0.7, after {@code toBackend("10.0.0.7",
 * false, "shop", 0, ..., "2 fairway", ...)}, goes to an {@code h2c://} backend as {@code :method POST,
 * :path /p.S/Call, :scheme http, :authority shop, content-type application/grpc,
 * x-forwarded-for 10.0.0.7, x-forwarded-proto http, x-forwarded-host shop, forwarded
 * for=10.0.0.7;proto=http;host=shop, via 2 fairway, te trailers}.
 */
public final class H2Request implements ClientRequest {
  /**
   * The names {@link #forwardField} is given (constants, and the overload lane's configured
   * fields), made once: the rules read a name's bytes, which a {@code String} would have copied
   * out on every request.
   */
  private static final ConcurrentMap<String, AsciiString> NAMES = new ConcurrentHashMap<>();

  /** The client's block, then the backend's; a copy once a frame holds it and it is edited again (a retry). */
  private Http2Headers h;
  private final HttpMethod method;
  private final String uri;
  private final boolean expectContinue;
  private boolean prepared;
  /** A HEADERS frame took {@link #h}: the next edit works on a copy. */
  private boolean written;
  /** The client's {@code te} listed {@code trailers} (read before the rules drop {@code te}). */
  private boolean teTrailers;
  private HeaderEdit edit;

  /** @throws IllegalArgumentException if Netty will not take the method */
  public H2Request(Http2Headers h) {
    this.h = h;
    this.method = HttpMethod.valueOf(h.method().toString());
    this.uri = h.path().toString();
    CharSequence expect = h.get(HttpHeaderNames.EXPECT);
    this.expectContinue = expect != null && AsciiString.contentEqualsIgnoreCase(expect, HttpHeaderValues.CONTINUE);
  }

  @Override
  public HttpMethod method() {
    return method;
  }

  @Override
  public String uri() {
    return uri;
  }

  @Override
  public HttpVersion version() {
    return HttpVersion.HTTP_1_1;
  }

  /** A stream is not a connection: the client's connection stays whatever this request says. */
  @Override
  public boolean keepAlive() {
    return true;
  }

  @Override
  public String host() {
    CharSequence a = h.authority();
    return a != null ? a.toString() : field("host");
  }

  @Override
  public String field(String lowerName) {
    CharSequence v = h.get(lowerName);
    return v == null ? null : v.toString();
  }

  @Override
  public boolean grpc() {
    return GrpcStatus.isGrpc(h.get(HttpHeaderNames.CONTENT_TYPE));
  }

  @Override
  public String grpcTimeout() {
    return field("grpc-timeout");
  }

  @Override
  public void forwardField(String lowerName, String value) {
    Http2Headers b = own();
    if (value == null) {
      b.remove(lowerName);
    } else {
      AsciiString name = NAMES.get(lowerName); // a plain read: computeIfAbsent may lock a bin on every call
      b.set(name != null ? name : NAMES.computeIfAbsent(lowerName, AsciiString::cached), value);
    }
  }

  @Override
  public void forwardTarget(String target) {
    own().path(StreamHead.path(target));
  }

  @Override
  public void editFields(HeaderEdit e) {
    edit = e;
  }

  @Override
  public boolean hasBody() {
    return true;
  }

  @Override
  public boolean endsWithHead() {
    return false;
  }

  @Override
  public String upgradeTo() {
    return null;
  }

  @Override
  public boolean expectContinue() {
    return expectContinue;
  }

  @Override
  public boolean hasUnderscoreName() {
    for (Map.Entry<CharSequence, CharSequence> f : h) {
      if (AsciiString.indexOf(f.getKey(), '_', 0) >= 0) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void toBackend(String client, boolean tls, String authority, int trustedHops, String fallbackHost, String via,
                        ByteBufAllocator alloc) {
    Http2Headers b = own();
    if (prepared) {
      if (authority == null) {
        b.authority(fallbackHost);
      }
      return;
    }
    prepared = true;
    teTrailers = ForwardingRules.teTrailers(field("te"));
    H2Rules.toBackend(b, client, tls, authority, trustedHops, via);
    if (edit != null) {
      FieldEdits.apply(b, edit);
    }
    b.authority(H2Fields.authority(authority != null ? authority : fallbackHost));
  }

  /** To an HTTP/1.1 backend: the block as Netty's request head, chunked unless it has {@code content-length}. */
  @Override
  public boolean writeTo(Channel ch, ChannelHandlerContext wire) {
    HttpRequest r = H1Fields.ofRequest(h);
    if (!HttpUtil.isContentLengthSet(r)) {
      r.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
    ch.write(r);
    return false;
  }

  /** To an HTTP/2 backend: the block itself, with the backend connection's {@code :scheme}; the body follows. */
  @Override
  public boolean writeToStream(StreamWriter stream) {
    Http2Headers b = own();
    b.scheme(stream.secure() ? H2Fields.HTTPS : H2Fields.HTTP);
    if (teTrailers) {
      b.set(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS);
    }
    written = true;
    stream.write(new DefaultHttp2HeadersFrame(b, false));
    return false;
  }

  @Override
  public void release() {
  }

  /** The block to edit: a copy of it if a frame took it (the codec may still be reading it). */
  private Http2Headers own() {
    if (written) {
      h = new DefaultHttp2Headers(false, h.size()).set(h);
      written = false;
    }
    return h;
  }
}
