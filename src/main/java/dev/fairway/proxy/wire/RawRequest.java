package dev.fairway.proxy.wire;

import static dev.fairway.proxy.wire.HeadBytes.indexOf;
import static dev.fairway.proxy.wire.HeadBytes.nameIs;
import static dev.fairway.proxy.wire.HeadBytes.value;

import dev.fairway.config.HeaderEdit;
import dev.fairway.grpc.GrpcStatus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A client's request without a body, as its head's bytes came: the {@link FramingGuard} checked
 * it and hands it on instead of letting Netty's decoder build a header map, and the
 * {@code Exchange} writes the backend's head from it byte for byte, without Netty's encoder.
 * Requests with a body, and upgrades, go through Netty's decoder (as a {@link DecodedRequest}).
 *
 * <p>Example: {@code "GET /a HTTP/1.1\r\nHost: shop\r\nConnection: keep-alive\r\nAccept: text/plain\r\n\r\n"}
 * from 10.0.0.7 becomes {@code "GET /a HTTP/1.1\r\nAccept: text/plain\r\nX-Forwarded-For: 10.0.0.7\r\n
 * X-Forwarded-Proto: http\r\nX-Forwarded-Host: shop\r\nVia: 1.1 fairway\r\nHost: shop\r\n\r\n"}: the
 * same edits, in the same order, as {@link Headers#toBackend} on a header map ({@link ForwardingRules}).
 */
public final class RawRequest implements ClientRequest {
  private static final byte[] HTTP_11_LINE_END = ascii(" HTTP/1.1\r\n");
  private static final byte[] HOST_PREFIX = ascii("host: ");
  private static final byte[] COOKIE_PREFIX = ascii("cookie: ");
  private static final String GRPC_TIMEOUT = "grpc-timeout";
  /**
   * What the fields {@link #toBackend} adds take besides their values: their names, separators,
   * quotes and line ends: about 130 bytes, of which {@code Forwarded}'s, with an IPv6 client and
   * {@code https}, are the most; with room to spare.
   */
  private static final int ADDED_FIELDS = 192;

  /** The head, from its request line to its blank line: a copy, kept for a retry and the access log. */
  private final byte[] head;
  private final int methodEnd;
  private final int uriEnd;
  private final int startEnd;
  private final HttpMethod method;
  private final String uri;
  private final boolean http10;
  private String host;
  /** The {@code Connection} field's values, comma-joined; {@code null} if there is none. */
  private String connection;
  private boolean underscoreName;
  /** {@code content-type} and {@code grpc-timeout} (the first of each), or {@code null}. */
  private String contentType;
  private String grpcTimeout;
  /** Fields the backend's head carries in place of the client's ({@link #forwardField}). */
  private final ForwardedFields replaced = new ForwardedFields();
  /** The backend's head, once made: kept for a retry, released when the exchange is over. */
  private ByteBuf backendHead;
  /** The target the backend gets ({@link #forwardTarget}); {@code null}: the client's. */
  private String backendTarget;
  /** The service's {@code requestHeaders} ({@link #editFields}); {@code null}: none. */
  private HeaderEdit edit;

  /** @param head a valid request head (checked by {@link HeadCheck}), not shared with anyone */
  RawRequest(byte[] head) {
    this.head = head;
    byte[] h = head;
    int textEnd = h.length - 2;
    startEnd = indexOf(h, (byte) '\r', 0, textEnd);
    methodEnd = indexOf(h, (byte) ' ', 0, startEnd);
    uriEnd = indexOf(h, (byte) ' ', methodEnd + 1, startEnd);
    method = methodEnd == 3 && h[0] == 'G' && h[1] == 'E' && h[2] == 'T' ? HttpMethod.GET
        : HttpMethod.valueOf(new String(h, 0, methodEnd, StandardCharsets.US_ASCII));
    uri = new String(h, methodEnd + 1, uriEnd - methodEnd - 1, StandardCharsets.ISO_8859_1);
    http10 = h[startEnd - 1] == '0';
    for (int s = startEnd + 2; s < textEnd; ) {
      int e = indexOf(h, (byte) '\r', s, textEnd);
      int colon = indexOf(h, (byte) ':', s, e);
      int n = colon - s;
      if (n == 4 && host == null && nameIs(h, s, "host")) {
        host = value(h, colon + 1, e);
      } else if (n == 10 && nameIs(h, s, "connection")) {
        String v = value(h, colon + 1, e);
        connection = connection == null ? v : connection + "," + v;
      } else if (n == 12 && contentType == null && nameIs(h, s, "content-type")) {
        contentType = value(h, colon + 1, e);
      } else if (n == 12 && grpcTimeout == null && nameIs(h, s, GRPC_TIMEOUT)) {
        grpcTimeout = value(h, colon + 1, e);
      }
      underscoreName |= indexOf(h, (byte) '_', s, colon) < colon;
      s = e + 2;
    }
  }

  /**
   * The HTTP/1.1 head an HTTP/2 request without a body stands for (RFC 9113 §8.3.1): the request
   * line from {@code :method} and {@code :path}, {@code Host} from {@code :authority} (else the
   * request's own {@code host} field), the other fields as they came, and {@code cookie} fields
   * joined into one (§8.2.3). The fields must have passed {@code StreamHeads.check}.
   *
   * <p>Example: {@code :method GET, :path /a, :scheme http, :authority shop, accept text/plain,
   * cookie a=1, cookie b=2} is {@code "GET /a HTTP/1.1\r\nhost: shop\r\naccept: text/plain\r\n
   * cookie: a=1; b=2\r\n\r\n"}.
   */
  public static RawRequest ofHttp2(Http2Headers h) {
    CharSequence authority = h.authority();
    int length = h.method().length() + 1 + h.path().length() + HTTP_11_LINE_END.length + 2;
    if (authority != null) {
      length += HOST_PREFIX.length + authority.length() + 2;
    }
    int cookies = 0;
    for (Map.Entry<CharSequence, CharSequence> f : h) {
      CharSequence name = f.getKey();
      if (!forwarded(name, authority)) {
        continue;
      }
      if (AsciiString.contentEquals(name, "cookie")) {
        length += (cookies++ == 0 ? COOKIE_PREFIX.length + 2 : 2) + f.getValue().length();
      } else {
        length += name.length() + 2 + f.getValue().length() + 2;
      }
    }
    byte[] b = new byte[length]; // the exact size: no builder, no string, one array
    int at = put(b, 0, h.method());
    b[at++] = ' ';
    at = put(b, at, h.path());
    System.arraycopy(HTTP_11_LINE_END, 0, b, at, HTTP_11_LINE_END.length);
    at += HTTP_11_LINE_END.length;
    if (authority != null) {
      at = crlf(b, put(b, put(b, at, HOST_PREFIX), authority));
    }
    for (Map.Entry<CharSequence, CharSequence> f : h) {
      CharSequence name = f.getKey();
      if (forwarded(name, authority) && !AsciiString.contentEquals(name, "cookie")) {
        at = put(b, at, name);
        b[at++] = ':';
        b[at++] = ' ';
        at = crlf(b, put(b, at, f.getValue()));
      }
    }
    if (cookies > 0) {
      at = put(b, at, COOKIE_PREFIX);
      boolean first = true;
      for (Map.Entry<CharSequence, CharSequence> f : h) {
        if (forwarded(f.getKey(), authority) && AsciiString.contentEquals(f.getKey(), "cookie")) {
          if (!first) {
            b[at++] = ';';
            b[at++] = ' ';
          }
          first = false;
          at = put(b, at, f.getValue());
        }
      }
      at = crlf(b, at);
    }
    crlf(b, at);
    return new RawRequest(b);
  }

  /**
   * Whether an HTTP/2 field goes into the HTTP/1.1 head as a field: not a pseudo-header, and not
   * {@code host} beside {@code :authority}.
   */
  private static boolean forwarded(CharSequence name, CharSequence authority) {
    return !(name.length() > 0 && name.charAt(0) == ':' || authority != null && AsciiString.contentEquals(name, "host"));
  }

  /** Writes {@code s}, whose chars are bytes (HPACK's), at {@code at}; returns where it ends. */
  private static int put(byte[] b, int at, CharSequence s) {
    int n = s.length();
    if (s instanceof AsciiString a) {
      a.copy(0, b, at, n);
    } else {
      for (int i = 0; i < n; i++) {
        b[at + i] = (byte) s.charAt(i);
      }
    }
    return at + n;
  }

  private static int put(byte[] b, int at, byte[] bytes) {
    System.arraycopy(bytes, 0, b, at, bytes.length);
    return at + bytes.length;
  }

  private static int crlf(byte[] b, int at) {
    b[at] = '\r';
    b[at + 1] = '\n';
    return at + 2;
  }

  /** The head's bytes (for tests and logs). */
  public byte[] bytes() {
    return head;
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
    return http10 ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
  }

  /** The {@code Host} field's value, or {@code null}. */
  @Override
  public String host() {
    return host;
  }

  /** Whether the client keeps its connection after this request (as Netty's {@code HttpUtil.isKeepAlive}). */
  @Override
  public boolean keepAlive() {
    return !Headers.listedIn(connection, HttpHeaderValues.CLOSE) && (!http10 || Headers.listedIn(connection, HttpHeaderValues.KEEP_ALIVE));
  }

  /** Whether a field name has an underscore (nginx and Envoy drop or reject those). */
  @Override
  public boolean hasUnderscoreName() {
    return underscoreName;
  }

  /** The first value of the field {@code lowerName}, or {@code null} (for the access log). */
  @Override
  public String field(String lowerName) {
    byte[] h = head;
    int textEnd = h.length - 2;
    for (int s = startEnd + 2; s < textEnd; ) {
      int e = indexOf(h, (byte) '\r', s, textEnd);
      int colon = indexOf(h, (byte) ':', s, e);
      if (colon - s == lowerName.length() && nameIs(h, s, lowerName)) {
        return value(h, colon + 1, e);
      }
      s = e + 2;
    }
    return null;
  }

  /**
   * Makes the backend's head by the {@link ForwardingRules}: HTTP/1.1, the fields the rules keep,
   * then {@code X-Forwarded-For}, {@code -Proto}, {@code -Host}, {@code Forwarded}, {@code Via}
   * and {@code Host}.
   */
  @Override
  public void toBackend(String client, boolean tls, String authority, int trustedHops, String fallbackHost, String via,
                        ByteBufAllocator alloc) {
    release();
    byte[] h = head;
    int textEnd = h.length - 2;
    int target = backendTarget == null ? 0 : backendTarget.length();
    ByteBuf out = alloc.ioBuffer(headRoom(h.length + target, client, authority != null ? authority : fallbackHost, via));
    if (backendTarget == null) {
      out.writeBytes(h, 0, uriEnd);
    } else {
      out.writeBytes(h, 0, methodEnd + 1).writeCharSequence(backendTarget, StandardCharsets.ISO_8859_1);
    }
    out.writeBytes(HTTP_11_LINE_END);
    String priorProto = null;
    String priorHost = null;
    String priorFor = null;
    String priorVia = null;
    String priorForwarded = null;
    for (int s = startEnd + 2; s < textEnd; ) {
      int e = indexOf(h, (byte) '\r', s, textEnd);
      int colon = indexOf(h, (byte) ':', s, e);
      switch (ForwardingRules.request(h, s, colon - s, connection)) {
        case KEEP -> {
          if (!replaced.names(h, s, colon - s) && (edit == null || !FieldEdits.drops(edit, h, s, colon - s))) {
            out.writeBytes(h, s, e + 2 - s);
          }
        }
        case PRIOR_FOR -> priorFor = ForwardingRules.append(priorFor, value(h, colon + 1, e));
        case PRIOR_PROTO -> priorProto = value(h, colon + 1, e);
        case PRIOR_HOST -> priorHost = value(h, colon + 1, e);
        case PRIOR_VIA -> priorVia = ForwardingRules.append(priorVia, value(h, colon + 1, e));
        case PRIOR_FORWARDED -> priorForwarded = ForwardingRules.append(priorForwarded, value(h, colon + 1, e));
        case DROP -> { }
      }
      s = e + 2;
    }
    FieldLines.write(out, FieldLines.X_FORWARDED_FOR, ForwardingRules.xForwardedFor(priorFor, client, trustedHops));
    FieldLines.write(out, FieldLines.X_FORWARDED_PROTO, ForwardingRules.xForwardedProto(priorProto, tls, trustedHops));
    String forwardedHost = ForwardingRules.xForwardedHost(priorHost, authority, trustedHops);
    if (forwardedHost != null) {
      FieldLines.write(out, FieldLines.X_FORWARDED_HOST, forwardedHost);
    }
    ForwardedElement.write(out, priorForwarded, client, tls, authority, trustedHops);
    FieldLines.write(out, FieldLines.VIA, ForwardingRules.via(priorVia, via));
    for (int i = 0; i < replaced.size(); i++) {
      if (replaced.value(i) != null) {
        FieldLines.write(out, replaced.name(i), replaced.value(i));
      }
    }
    if (edit != null) {
      FieldEdits.write(out, edit);
    }
    FieldLines.write(out, FieldLines.HOST, authority != null ? authority : fallbackHost);
    backendHead = out.writeByte('\r').writeByte('\n');
  }

  /**
   * Bytes enough for the backend's head without growing its buffer (a copy per request): the
   * client's head (the fields kept, the earlier hops' values; plus a rewritten target), plus the added
   * fields' names and framing ({@link #ADDED_FIELDS}), the client's address twice
   * ({@code X-Forwarded-For}, {@code Forwarded}), the host three times ({@code X-Forwarded-Host},
   * {@code Forwarded}, {@code Host}) and {@code Via}'s token. Only configured header edits and
   * replaced fields may still grow it.
   *
   * <p>Example: {@code GET / HTTP/1.1}, {@code Host: 127.0.0.1:8080} from 127.0.0.1 (40 bytes)
   * takes 40 + 192 + 18 + 42 + 11 = 303 bytes for a head of 204.
   */
  static int headRoom(int headLength, String client, String host, String via) {
    return headLength + ADDED_FIELDS + 2 * client.length() + 3 * (host == null ? 0 : host.length())
        + (via == null ? 0 : via.length());
  }

  /** The backend's head made by {@link #toBackend} (for tests). */
  public ByteBuf backendHead() {
    return backendHead;
  }

  @Override
  public boolean writeTo(Channel ch, ChannelHandlerContext wire) {
    wire.writeAndFlush(backendHead.retainedDuplicate());
    return true;
  }

  /**
   * The backend's head as a HEADERS frame ending the stream, for an HTTP/2 stream: its fields read
   * back from the bytes {@link #toBackend} made (so the {@link ForwardingRules} apply once, the
   * same way) by {@link StreamHead}, plus {@code te: trailers} if the client's {@code te} listed it.
   */
  @Override
  public boolean writeToStream(StreamWriter stream) {
    byte[] h = ByteBufUtil.getBytes(backendHead);
    stream.write(new DefaultHttp2HeadersFrame(StreamHead.of(h, h.length, method,
        backendTarget == null ? uri : backendTarget, stream.secure(), ForwardingRules.teTrailers(field("te"))), true));
    stream.flush();
    return true;
  }

  @Override
  public void release() {
    if (backendHead != null) {
      backendHead.release();
      backendHead = null;
    }
  }

  @Override
  public boolean grpc() {
    return GrpcStatus.isGrpc(contentType);
  }

  @Override
  public String grpcTimeout() {
    return grpcTimeout;
  }

  @Override
  public void forwardField(String lowerName, String value) {
    replaced.put(lowerName, value);
  }

  @Override
  public void forwardTarget(String target) {
    backendTarget = target;
  }

  @Override
  public void editFields(HeaderEdit e) {
    edit = e;
  }

  @Override
  public boolean hasBody() {
    return false;
  }

  @Override
  public boolean endsWithHead() {
    return true;
  }

  @Override
  public String upgradeTo() {
    return null;
  }

  @Override
  public boolean expectContinue() {
    return false;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public String toString() {
    return "RawRequest[" + new String(head, 0, startEnd, StandardCharsets.ISO_8859_1) + "]";
  }
}
