package dev.fairway.testing;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A bare HTTP/2 client over a socket, for requests a real client refuses to send: it writes the
 * preface, an empty SETTINGS frame and a request on stream 1 (every field a literal, so any name,
 * value or size goes; a body comes with trailer fields), and reads frames until it is answered.
 *
 * <p>Example: {@code RawH2.request(port, ":method", "GET", ":path", "/", ":scheme", "http",
 * ":authority", "a", "x-big", "v".repeat(40_000))} is {@code "status 431"} or {@code "reset"}.
 */
public final class RawH2 {
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final int DATA = 0;
  private static final int HEADERS = 1;
  private static final int RST_STREAM = 3;
  private static final int SETTINGS = 4;
  private static final int GOAWAY = 7;
  private static final int WINDOW_UPDATE = 8;

  private RawH2() {
  }

  /**
   * Sends one request without a body on stream 1 and says how it was answered: {@code "status N"},
   * {@code "reset"} (RST_STREAM), {@code "goaway"} or {@code "closed"}.
   *
   * @param fields names and values in turn, pseudo-header fields first
   */
  public static String request(int port, String... fields) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      OutputStream out = open(s, 5000, new byte[0]);
      headers(out, headerBlock(fields), true);
      out.flush();
      return answer(new DataInputStream(s.getInputStream()), false);
    }
  }

  /**
   * Sends a request on stream 1 as a HEADERS frame, one DATA frame with {@code body} and, if
   * there are any, a last HEADERS frame with the trailer fields, and says how it was answered:
   * {@code "status N: body"}, or as {@link #request}.
   *
   * @param trailers trailer names and values in turn; none: the DATA frame ends the stream
   * @param fields names and values in turn, pseudo-header fields first
   */
  public static String requestWithBody(int port, String body, String[] trailers, String... fields)
      throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      OutputStream out = open(s, 5000, new byte[0]);
      headers(out, headerBlock(fields), false);
      frame(out, DATA, trailers.length == 0 ? 0x1 : 0, 1, body.getBytes(StandardCharsets.UTF_8));
      if (trailers.length > 0) {
        headers(out, headerBlock(trailers), true);
      }
      out.flush();
      return answer(new DataInputStream(s.getInputStream()), true);
    }
  }

  /**
   * {@link #requestWithBody} without trailers, answered with the fields of the head and of the
   * trailers, in order ({@code x-request-id} by name only, its value differs each time):
   * {@code "200 [content-type: text/plain, via: 1.1 fairway, x-request-id] h2 /f hi [x-checksum: 42]"}.
   */
  public static String fieldsOf(int port, String body, String... fields) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      OutputStream out = open(s, 5000, new byte[0]);
      headers(out, headerBlock(fields), false);
      frame(out, DATA, 0x1, 1, body.getBytes(StandardCharsets.UTF_8));
      out.flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);
      StringBuilder text = new StringBuilder();
      while (true) {
        Frame f = readFrame(in);
        if (f.stream() != 1 || f.type() != HEADERS && f.type() != DATA) {
          continue;
        }
        if (f.type() == DATA) {
          text.append(new String(f.payload(), StandardCharsets.UTF_8));
        } else {
          Http2Headers h = decoder.decodeHeaders(1, Unpooled.wrappedBuffer(f.payload()));
          text.append(text.length() > 0 ? " " : "").append(h.status() == null ? "" : h.status() + " ");
          java.util.List<String> named = new java.util.ArrayList<>();
          h.forEach(e -> {
            if (e.getKey().charAt(0) != ':') {
              named.add(e.getKey() + (e.getKey().toString().equals("x-request-id") ? "" : ": " + e.getValue()));
            }
          });
          text.append(named).append(h.status() == null ? "" : " ");
        }
        if ((f.flags() & 0x1) != 0) {
          return text.toString();
        }
      }
    } catch (io.netty.handler.codec.http2.Http2Exception e) {
      throw new IOException(e);
    }
  }

  /**
   * Opens stream 1 with a window of zero for the server's DATA (SETTINGS_INITIAL_WINDOW_SIZE 0),
   * sends a request head that leaves its body to come, opens the window after {@code waitMs} and
   * says what came on stream 1, frame by frame, until a reset or a second of silence:
   * e.g. {@code "HEADERS 404, DATA 9 END_STREAM, RST_STREAM 0"}.
   */
  public static String requestWithShutWindow(int port, long waitMs, String... fields)
      throws IOException, InterruptedException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      OutputStream out = open(s, 1000, new byte[] {0, 4, 0, 0, 0, 0}); // SETTINGS_INITIAL_WINDOW_SIZE = 0
      headers(out, headerBlock(fields), false);
      out.flush();
      Thread.sleep(waitMs);
      frame(out, WINDOW_UPDATE, 0, 1, new byte[] {0, 0, (byte) 0xff, (byte) 0xff});
      out.flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);
      java.util.List<String> seen = new java.util.ArrayList<>();
      try {
        while (true) {
          Frame f = readFrame(in);
          if (f.stream() != 1) {
            continue;
          }
          String end = (f.flags() & 0x1) != 0 ? " END_STREAM" : "";
          switch (f.type()) {
            case HEADERS -> seen.add("HEADERS " + decoder.decodeHeaders(1, Unpooled.wrappedBuffer(f.payload())).status() + end);
            case DATA -> seen.add("DATA " + f.payload().length + end);
            case RST_STREAM -> {
              seen.add("RST_STREAM " + new DataInputStream(new java.io.ByteArrayInputStream(f.payload())).readInt());
              return String.join(", ", seen);
            }
            default -> seen.add("type " + f.type());
          }
        }
      } catch (java.net.SocketTimeoutException | EOFException e) {
        return String.join(", ", seen);
      } catch (io.netty.handler.codec.http2.Http2Exception e) {
        throw new IOException(e);
      }
    }
  }

  /**
   * Opens {@code n} streams (1, 3, 5, …), each a {@code GET path}, with the largest flow-control
   * windows for the server's DATA, on a socket with a small receive buffer that is never read: only
   * the socket holds the server's sending back. Closing the socket ends them.
   */
  public static Socket stalledDownloads(int port, int n, String path) throws IOException {
    Socket s = new Socket();
    s.setReceiveBufferSize(16 * 1024);
    s.connect(new java.net.InetSocketAddress("127.0.0.1", port));
    OutputStream out = open(s, 1000, new byte[] {0, 4, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}); // INITIAL_WINDOW_SIZE 2^31-1
    frame(out, WINDOW_UPDATE, 0, 0, new byte[] {0x7f, (byte) 0xff, 0, 0}); // the connection's window to about 2^31
    for (int i = 0; i < n; i++) {
      frame(out, HEADERS, 0x5, 1 + 2 * i, headerBlock(":method", "GET", ":path", path, ":scheme", "http", ":authority", "a"));
    }
    out.flush();
    return s;
  }

  /**
   * Opens {@code n} streams (1, 3, 5, …), each a {@code GET path}, whose flow-control windows stay
   * at their initial 65,535 bytes (the connection's is opened wide) while a thread reads and drops
   * whatever comes: only each stream's window holds the server's sending back. Closing the socket
   * ends them.
   */
  public static Socket windowBoundDownloads(int port, int n, String path) throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    OutputStream out = open(s, 0, new byte[0]);
    frame(out, WINDOW_UPDATE, 0, 0, new byte[] {0x7f, (byte) 0xff, 0, 0});
    for (int i = 0; i < n; i++) {
      frame(out, HEADERS, 0x5, 1 + 2 * i, headerBlock(":method", "GET", ":path", path, ":scheme", "http", ":authority", "a"));
    }
    out.flush();
    Thread drain = new Thread(() -> {
      byte[] sink = new byte[64 * 1024];
      try {
        while (s.getInputStream().read(sink) >= 0) {
          // dropped
        }
      } catch (IOException closed) {
        // the test closed the socket
      }
    }, "raw-h2-drain");
    drain.setDaemon(true);
    drain.start();
    return s;
  }

  /**
   * Opens {@code n} streams (1, 3, 5, …), each a {@code GET path}, with the largest windows, on a
   * socket with a small receive buffer read slowly (a pause after each 64 KiB): the socket holds
   * the server back while all streams have DATA to send. Returns the payload sizes of the DATA
   * frames that came, in order, once every stream ended.
   */
  public static java.util.List<Integer> slowDownloads(int port, int n, String path) throws IOException, InterruptedException {
    try (Socket s = new Socket()) {
      s.setReceiveBufferSize(16 * 1024);
      s.connect(new java.net.InetSocketAddress("127.0.0.1", port));
      OutputStream out = open(s, 10_000, new byte[] {0, 4, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff});
      frame(out, WINDOW_UPDATE, 0, 0, new byte[] {0x7f, (byte) 0xff, 0, 0});
      for (int i = 0; i < n; i++) {
        frame(out, HEADERS, 0x5, 1 + 2 * i, headerBlock(":method", "GET", ":path", path, ":scheme", "http", ":authority", "a"));
      }
      out.flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      java.util.List<Integer> sizes = new java.util.ArrayList<>();
      int ended = 0;
      long sinceNap = 0;
      while (ended < n) {
        Frame f = readFrame(in);
        if (f.type() == DATA) {
          sizes.add(f.payload().length);
          sinceNap += f.payload().length;
        }
        if ((f.type() == DATA || f.type() == HEADERS) && (f.flags() & 0x1) != 0 || f.type() == RST_STREAM) {
          ended++;
        }
        if (sinceNap >= 64 * 1024) {
          sinceNap = 0;
          Thread.sleep(2);
        }
      }
      return sizes;
    }
  }

  /** Sets the read timeout and writes the preface and a SETTINGS frame with {@code settings}. */
  private static OutputStream open(Socket s, int timeoutMs, byte[] settings) throws IOException {
    s.setSoTimeout(timeoutMs);
    OutputStream out = s.getOutputStream();
    out.write(PREFACE);
    frame(out, SETTINGS, 0, 0, settings);
    return out;
  }

  /** A header block on stream 1 in a HEADERS frame and as many CONTINUATION frames as it takes. */
  private static void headers(OutputStream out, byte[] block, boolean endStream) throws IOException {
    int maxFrame = 16_384;
    for (int off = 0; off < block.length || off == 0; off += maxFrame) {
      int n = Math.min(maxFrame, block.length - off);
      boolean last = off + n >= block.length;
      byte[] part = java.util.Arrays.copyOfRange(block, off, off + n);
      int flags = (last ? 0x4 : 0) | (off == 0 && endStream ? 0x1 : 0);
      frame(out, off == 0 ? HEADERS : 9, flags, 1, part);
    }
  }

  /**
   * The "rapid reset" pattern (CVE-2023-44487): opens {@code n} streams, each a {@code GET /}
   * cancelled by RST_STREAM at once, and says whether the server ended the connection
   * ({@code "goaway"} or {@code "closed"}) or let it go on ({@code "open"}, after 2 s of silence).
   */
  public static String rapidReset(int port, int n) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(2000);
      OutputStream out = s.getOutputStream();
      byte[] block = headerBlock(":method", "GET", ":path", "/", ":scheme", "http", ":authority", "a");
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      all.write(PREFACE);
      frame(all, SETTINGS, 0, 0, new byte[0]);
      for (int i = 0; i < n; i++) {
        frame(all, HEADERS, 0x5, 2 * i + 1, block);
        frame(all, RST_STREAM, 0, 2 * i + 1, new byte[] {0, 0, 0, 8}); // CANCEL
      }
      out.write(all.toByteArray());
      out.flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      try {
        while (readFrame(in).type() != GOAWAY) {
          continue;
        }
        return "goaway";
      } catch (EOFException e) {
        return "closed";
      } catch (java.net.SocketTimeoutException e) {
        return "open";
      }
    }
  }

  /** The answer on stream 1: its status and, if {@code withBody}, its DATA up to END_STREAM (on DATA or on trailers). */
  private static String answer(DataInputStream in, boolean withBody) throws IOException {
    DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);
    String status = null;
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    try {
      while (true) {
        Frame f = readFrame(in);
        if (f.type() == HEADERS && f.stream() == 1 && status == null) {
          Http2Headers h = decoder.decodeHeaders(1, Unpooled.wrappedBuffer(f.payload()));
          status = "status " + h.status();
          if (!withBody || (f.flags() & 0x1) != 0) {
            return status + (withBody ? ": " : "");
          }
          continue;
        }
        if (f.type() == HEADERS && f.stream() == 1 && (f.flags() & 0x1) != 0) {
          return status + ": " + body.toString(StandardCharsets.UTF_8); // trailers end the stream
        }
        if (f.type() == DATA && f.stream() == 1) {
          body.write(f.payload());
          if ((f.flags() & 0x1) != 0) {
            return status + ": " + body.toString(StandardCharsets.UTF_8);
          }
          continue;
        }
        if (f.type() == RST_STREAM && f.stream() == 1) {
          return "reset";
        }
        if (f.type() == GOAWAY) {
          return "goaway";
        }
      }
    } catch (EOFException e) {
      return "closed";
    } catch (io.netty.handler.codec.http2.Http2Exception e) {
      throw new IOException(e);
    }
  }

  private record Frame(int type, int flags, int stream, byte[] payload) {
  }

  private static Frame readFrame(DataInputStream in) throws IOException {
    int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
    int type = in.readUnsignedByte();
    int flags = in.readUnsignedByte();
    int stream = in.readInt() & 0x7fffffff;
    byte[] payload = new byte[length];
    in.readFully(payload);
    return new Frame(type, flags, stream, payload);
  }

  /** Field lines as HPACK literals without indexing, new names (RFC 7541 §6.2.2): any name, value or size goes. */
  private static byte[] headerBlock(String... fields) {
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    for (int i = 0; i < fields.length; i += 2) {
      block.write(0);
      string(block, fields[i]);
      string(block, fields[i + 1]);
    }
    return block.toByteArray();
  }

  private static void frame(OutputStream out, int type, int flags, int stream, byte[] payload) throws IOException {
    out.write(new byte[] {(byte) (payload.length >> 16), (byte) (payload.length >> 8), (byte) payload.length,
        (byte) type, (byte) flags, (byte) (stream >> 24), (byte) (stream >> 16), (byte) (stream >> 8), (byte) stream});
    out.write(payload);
  }

  /** A string literal, not Huffman-coded: its length as a 7-bit-prefix integer, then its bytes. */
  private static void string(ByteArrayOutputStream out, String s) {
    byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
    int n = b.length;
    if (n < 127) {
      out.write(n);
    } else {
      out.write(127);
      n -= 127;
      while (n >= 128) {
        out.write((n & 0x7f) | 0x80);
        n >>>= 7;
      }
      out.write(n);
    }
    out.write(b, 0, b.length);
  }
}
