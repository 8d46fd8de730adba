package dev.fairway.proxy.wire;

import static dev.fairway.proxy.wire.HeadBytes.indexOf;
import static dev.fairway.proxy.wire.HeadBytes.nameIs;
import static dev.fairway.proxy.wire.HeadBytes.value;

import dev.fairway.config.HeaderEdit;
import dev.fairway.grpc.GrpcStatus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * A backend's final response head whose body is framed by {@code Content-Length} (or that has no
 * body), as its bytes came: the {@link FramingGuard} checked it and hands it on instead of letting
 * Netty's decoder build a header map, and the {@code Exchange} writes the client's head from it
 * byte for byte, without Netty's encoder. Its body follows as {@link RawBody} parts.
 *
 * <p>Example: {@code "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 6\r\nConnection: keep-alive\r\n\r\n"}
 * for an HTTP/1.1 client that keeps its connection becomes
 * {@code "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 6\r\nVia: 1.1 fairway\r\n\r\n"}, and
 * {@link #keepAlive} is true. The same edits as {@link Headers#toClient} on a header map: hop-by-hop
 * fields, fields named in {@code Connection} and the backend's signals go, {@code Via} is extended.
 *
 * <p>The head's bytes are borrowed from the guard's scratch array: they are valid only while
 * the read that delivered this message runs, so {@link #toClient} must be called then.
 */
public final class RawResponse {
  private static final byte[] HTTP_10 = ascii("HTTP/1.0");
  private static final byte[] HTTP_11 = ascii("HTTP/1.1");
  private static final byte[] VIA_LINE = ascii("Via: " + ForwardingRules.VIA_TOKEN + "\r\n");
  private static final byte[] CLOSE_LINE = ascii("Connection: close\r\n");
  private static final byte[] KEEP_ALIVE_LINE = ascii("Connection: keep-alive\r\n");
  private static final byte[] REQUEST_ID_NAME = ascii("X-Request-Id: ");
  private static final AsciiString VIA_NAME = AsciiString.cached("via");
  private static final AsciiString VIA_VALUE = AsciiString.cached(ForwardingRules.VIA_TOKEN);

  private final byte[] head;
  private final int length;
  private final int status;
  private final long bodyLength;
  private boolean keepAlive;
  private boolean lameDuck;
  private boolean retryAfter;
  private String loadReport;
  private int grpcStatus = -1;
  private String binaryLoadReport;
  /** The {@code Connection} field's values, comma-joined, and the {@code Via} values (known after {@link #scan}). */
  private String connection;
  private String priorVia;
  private String requestId;
  /** The service's {@code responseHeaders}; {@code null}: none. */
  private HeaderEdit edit;
  /** Where the status line ends, once {@link #scan} has read the fields; -1 before. */
  private int statusLineEnd = -1;

  /**
   * @param head       the head's bytes, from its status line to its blank line, at {@code head[0]}
   * @param length     how many bytes of {@code head} are the head
   * @param bodyLength the body's length (0: none, e.g. a {@code HEAD} request's answer)
   */
  RawResponse(byte[] head, int length, int status, long bodyLength) {
    this.head = head;
    this.length = length;
    this.status = status;
    this.bodyLength = bodyLength;
  }

  public int status() {
    return status;
  }

  public long bodyLength() {
    return bodyLength;
  }

  /** Whether the backend keeps the connection open after this response (known after {@link #toClient} or {@link #toHttp2}). */
  public boolean keepAlive() {
    return keepAlive;
  }

  /** Whether the head has a {@code Retry-After} field (read now if the fields were not read yet). */
  public boolean retryAfter() {
    scan();
    return retryAfter;
  }

  /** Whether the backend said {@code Lame-Duck: true} (known after {@link #toClient} or {@link #toHttp2}). */
  public boolean lameDuck() {
    return lameDuck;
  }

  /**
   * The backend's load report as {@link ForwardingRules#loadReport} gives it, or {@code null}
   * (known after {@link #toClient} or {@link #toHttp2}).
   */
  public String loadReport() {
    return ForwardingRules.loadReport(loadReport, binaryLoadReport);
  }

  /** The {@code grpc-status} code of a trailers-only answer, or -1 (known after {@link #toClient} or {@link #toHttp2}). */
  public int grpcStatus() {
    return grpcStatus;
  }

  /** The client's head carries {@code X-Request-Id: id} in place of the backend's ({@code null}: the backend's, if any). */
  public void requestId(String id) {
    requestId = id;
  }

  /** The client's head gets the service's {@code responseHeaders} edit (not empty), after Fairway's own fields. */
  public void edit(HeaderEdit e) {
    edit = e;
  }

  /**
   * Whether the field at {@code h[s, s + n)} is replaced: the backend's {@code X-Request-Id} by
   * {@link #requestId}, or one the {@link #edit} removes or sets.
   */
  private boolean replaced(byte[] h, int s, int n) {
    return requestId != null && n == 12 && HeadBytes.nameIs(h, s, RequestId.HEADER)
        || edit != null && FieldEdits.drops(edit, h, s, n);
  }

  /**
   * Reads the fields Fairway acts on and writes the client's head.
   *
   * @param http10      the client spoke HTTP/1.0 (the status line says so, and a kept connection says keep-alive)
   * @param closeClient the client's connection closes after this response ({@code Connection: close})
   */
  public ByteBuf toClient(boolean http10, boolean closeClient, ByteBufAllocator alloc) {
    byte[] h = head;
    int textEnd = length - 2; // the last field line's CRLF stays part of the text
    int startEnd = scan();
    ByteBuf out = alloc.ioBuffer(length + added());
    out.writeBytes(http10 ? HTTP_10 : HTTP_11).writeBytes(h, 8, startEnd + 2 - 8);
    for (int s = startEnd + 2; s < textEnd; ) {
      int e = indexOf(h, (byte) '\r', s, textEnd);
      int colon = indexOf(h, (byte) ':', s, e);
      if (ForwardingRules.response(h, s, colon - s, connection) == ForwardingRules.Rule.KEEP && !replaced(h, s, colon - s)) {
        out.writeBytes(h, s, e + 2 - s);
      }
      s = e + 2;
    }
    if (priorVia == null) {
      out.writeBytes(VIA_LINE);
    } else {
      out.writeCharSequence("Via: " + ForwardingRules.via(priorVia, ForwardingRules.VIA_TOKEN) + "\r\n",
          StandardCharsets.ISO_8859_1);
    }
    if (requestId != null) {
      out.writeBytes(REQUEST_ID_NAME).writeCharSequence(requestId, StandardCharsets.ISO_8859_1);
      out.writeByte('\r').writeByte('\n');
    }
    if (edit != null) {
      FieldEdits.write(out, edit);
    }
    if (closeClient) {
      out.writeBytes(CLOSE_LINE);
    } else if (http10) {
      out.writeBytes(KEEP_ALIVE_LINE);
    }
    return out.writeByte('\r').writeByte('\n');
  }

  /**
   * What {@link #toClient} adds to the backend's head at most, so that its buffer never grows (a
   * copy per response): {@code Via} (with {@code ", "} after an earlier hop's), the request id and a
   * {@code Connection} line. Only a configured {@code responseHeaders} edit may still grow it.
   */
  int added() {
    return VIA_LINE.length + 2 + KEEP_ALIVE_LINE.length
        + (requestId == null ? 0 : REQUEST_ID_NAME.length + requestId.length() + 2);
  }

  /**
   * Reads the fields Fairway acts on and makes the client's head as HTTP/2 fields: the same
   * edits as {@link #toClient}, names in lower case, no {@code Connection} (HTTP/2 has none).
   *
   * <p>Example: {@code "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 6\r\n\r\n"} becomes
   * {@code :status 200, server nginx, content-length 6, via 1.1 fairway}.
   */
  public Http2Headers toHttp2() {
    byte[] h = head;
    int textEnd = length - 2;
    int startEnd = scan();
    Http2Headers out = new DefaultHttp2Headers(false, 8);
    out.status(HttpResponseStatus.valueOf(status).codeAsText()); // cached for the known codes
    for (int s = startEnd + 2; s < textEnd; ) {
      int e = indexOf(h, (byte) '\r', s, textEnd);
      int colon = indexOf(h, (byte) ':', s, e);
      if (ForwardingRules.response(h, s, colon - s, connection) == ForwardingRules.Rule.KEEP && !replaced(h, s, colon - s)) {
        int v = colon + 1;
        while (v < e && (h[v] == ' ' || h[v] == '\t')) {
          v++;
        }
        int ve = e;
        while (ve > v && (h[ve - 1] == ' ' || h[ve - 1] == '\t')) {
          ve--;
        }
        out.add(lowerCase(h, s, colon), new AsciiString(h, v, ve - v, true));
      }
      s = e + 2;
    }
    out.add(VIA_NAME, priorVia == null ? VIA_VALUE : new AsciiString(ForwardingRules.via(priorVia, ForwardingRules.VIA_TOKEN)));
    if (requestId != null) {
      out.add(RequestId.HEADER, requestId);
    }
    if (edit != null) {
      FieldEdits.addTo(out, edit);
    }
    return out;
  }

  /** A field name in lower case, as HTTP/2 has it: one copy (HPACK may keep it in its table). */
  private static AsciiString lowerCase(byte[] h, int from, int end) {
    byte[] name = new byte[end - from];
    for (int i = 0; i < name.length; i++) {
      byte c = h[from + i];
      name[i] = c >= 'A' && c <= 'Z' ? (byte) (c + 32) : c;
    }
    return new AsciiString(name, false);
  }

  /**
   * Reads {@code Connection}, {@code Via} and the backend's signals, once; returns where the
   * status line ends.
   */
  private int scan() {
    if (statusLineEnd >= 0) {
      return statusLineEnd;
    }
    byte[] h = head;
    int textEnd = length - 2;
    int startEnd = indexOf(h, (byte) '\r', 0, textEnd);
    boolean lameDuckSeen = false;
    for (int s = startEnd + 2; s < textEnd; ) {
      int e = indexOf(h, (byte) '\r', s, textEnd);
      int colon = indexOf(h, (byte) ':', s, e);
      int n = colon - s;
      if (n == 10 && nameIs(h, s, "connection")) {
        String v = value(h, colon + 1, e);
        connection = connection == null ? v : connection + "," + v;
      } else if (n == 3 && nameIs(h, s, "via")) {
        String v = value(h, colon + 1, e);
        priorVia = ForwardingRules.append(priorVia, v);
      } else if (n == 9 && nameIs(h, s, ForwardingRules.LAME_DUCK) && !lameDuckSeen) {
        lameDuckSeen = true; // the first field decides, as a header map's get has it
        lameDuck = "true".equalsIgnoreCase(value(h, colon + 1, e));
      } else if (n == 11 && nameIs(h, s, "retry-after")) {
        retryAfter = true;
      } else if (n == 11 && grpcStatus < 0 && nameIs(h, s, "grpc-status")) {
        grpcStatus = GrpcStatus.parseCode(value(h, colon + 1, e));
      } else if (n == 21 && nameIs(h, s, ForwardingRules.LOAD_METRICS) && loadReport == null) {
        loadReport = value(h, colon + 1, e);
      } else if (n == 25 && nameIs(h, s, ForwardingRules.LOAD_METRICS_BIN) && binaryLoadReport == null) {
        binaryLoadReport = value(h, colon + 1, e);
      }
      s = e + 2;
    }
    boolean backendHttp10 = h[7] == '0';
    keepAlive = !Headers.listedIn(connection, HttpHeaderValues.CLOSE) && (!backendHttp10 || Headers.listedIn(connection, HttpHeaderValues.KEEP_ALIVE));
    statusLineEnd = startEnd;
    return startEnd;
  }


  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
