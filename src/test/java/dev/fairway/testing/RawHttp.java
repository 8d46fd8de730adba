package dev.fairway.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A blocking HTTP/1.1 client over a plain socket that sends the request bytes exactly as given
 * (no client library adds or drops header fields) and reads the response head and a
 * {@code Content-Length} body. Every read is bounded by a five second socket timeout.
 *
 * <p>Example: {@code RawHttp.exchange(port, "GET / HTTP/1.1\r\nHost: a\r\nTE: trailers\r\n\r\n")}
 * returns the status, the header fields in wire order and the body.
 */
public final class RawHttp {
  private RawHttp() {
  }

  /** One response as received. */
  public record Response(int status, List<String[]> headers, String body) {
    /** All values of a field (case-insensitive name), in wire order. */
    public List<String> all(String name) {
      List<String> out = new ArrayList<>();
      for (String[] h : headers) {
        if (h[0].equalsIgnoreCase(name)) {
          out.add(h[1]);
        }
      }
      return out;
    }

    /** Lower-case names of every field received. */
    public List<String> names() {
      return headers.stream().map(h -> h[0].toLowerCase(Locale.ROOT)).toList();
    }
  }

  /** Sends {@code request} to 127.0.0.1:port and reads one response with a Content-Length body. */
  public static Response exchange(int port, String request) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      return readResponse(s.getInputStream());
    }
  }

  /**
   * Sends {@code request}, reads one response (status and Content-Length body), then waits up to
   * two seconds for the server to close the connection.
   *
   * @return the response; {@code closed} tells whether the server closed after it
   */
  public static Closing exchangeAndClose(int port, String request) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      s.setSoTimeout(5000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      return readAndAwaitClose(s);
    }
  }

  /** A response and whether the server closed the connection after it. */
  public record Closing(Response response, boolean closed) {
  }

  /** Reads one response from an open socket, then waits up to two seconds for end of stream. */
  public static Closing readAndAwaitClose(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    Response r = readResponse(in);
    s.setSoTimeout(2000);
    boolean closed;
    try {
      closed = in.read() < 0;
    } catch (java.net.SocketTimeoutException e) {
      closed = false;
    } catch (IOException e) {
      closed = true; // reset counts as closed
    }
    return new Closing(r, closed);
  }

  /** Reads one response head and its Content-Length body from {@code in}. */
  public static Response readResponse(InputStream in) throws IOException {
    String head = readHead(in);
    String[] lines = head.split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    List<String[]> headers = new ArrayList<>();
    long length = 0;
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      String name = lines[i].substring(0, colon);
      String value = lines[i].substring(colon + 1).trim();
      headers.add(new String[] {name, value});
      if (name.equalsIgnoreCase("content-length")) {
        length = Long.parseLong(value);
      }
    }
    byte[] body = in.readNBytes((int) length);
    return new Response(status, headers, new String(body, StandardCharsets.UTF_8));
  }

  /** Reads one message head up to its blank line; returns it without the final CRLF CRLF. */
  public static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed inside a message head: " + head);
      }
      head.write(b);
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    String text = head.toString(StandardCharsets.ISO_8859_1);
    return text.substring(0, text.length() - 4);
  }
}
