package dev.fairway.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A raw HTTP/1.1 backend on 127.0.0.1 and a free port, on plain sockets, that records the request
 * heads it reads (every one, smuggled or not) and answers each with bytes from a script, however
 * wrong. It reads each request's body by its framing before answering, and counts the requests
 * whose body came whole. Fairway's health checks ({@code GET /health}) get a plain 200 and are not
 * recorded.
 *
 * <p>Example: {@code RecordingBackend.start((head, out) -> { out.write(OK); return true; })} answers
 * every request with {@code OK} and keeps the connection; {@code heads()} then lists each request
 * line it saw, e.g. {@code [POST /a HTTP/1.1, GET /smuggled HTTP/1.1]}.
 */
public final class RecordingBackend implements AutoCloseable {
  /** What the backend answers to one request. */
  @FunctionalInterface
  public interface Script {
    /**
     * Writes the answer to the request whose head is {@code head} (without its final blank line).
     *
     * @return whether to keep the connection for another request
     */
    boolean answer(String head, OutputStream out) throws IOException, InterruptedException;
  }

  private final ServerSocket server;
  private final Script script;
  private final List<String> heads = new CopyOnWriteArrayList<>();
  private final List<String> fullHeads = new CopyOnWriteArrayList<>();
  private final AtomicInteger wholeBodies = new AtomicInteger();
  private final AtomicInteger connections = new AtomicInteger();
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  private RecordingBackend(Script script) throws IOException {
    this.script = script;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "recording-backend");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Starts listening at once. */
  public static RecordingBackend start(Script script) {
    try {
      return new RecordingBackend(script);
    } catch (IOException e) {
      throw new IllegalStateException("recording backend did not start", e);
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  /** The request lines read so far, in order. */
  public List<String> heads() {
    return List.copyOf(heads);
  }

  /** The full request heads read so far, in order. */
  public List<String> fullHeads() {
    return List.copyOf(fullHeads);
  }

  /** Requests whose body (by its framing) was read whole. */
  public int wholeBodies() {
    return wholeBodies.get();
  }

  /** Connections accepted so far, health checks included. */
  public int connections() {
    return connections.get();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        connections.incrementAndGet();
        open.add(s);
        Thread t = new Thread(() -> serve(s), "recording-backend-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      InputStream in = new BufferedInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      while (true) {
        String head;
        try {
          head = RawHttp.readHead(in);
        } catch (IOException closed) {
          return;
        }
        if (head.startsWith("GET /health ")) {
          out.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok".getBytes(StandardCharsets.ISO_8859_1));
          return;
        }
        heads.add(head.substring(0, head.indexOf("\r\n") < 0 ? head.length() : head.indexOf("\r\n")));
        fullHeads.add(head);
        if (!readBody(head, in)) {
          return;
        }
        wholeBodies.incrementAndGet();
        if (!script.answer(head, out)) {
          return;
        }
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // the peer went away: nothing to record
    }
  }

  /** Reads the body by its framing; false if the connection ended first. */
  private static boolean readBody(String head, InputStream in) throws IOException {
    String lower = head.toLowerCase(Locale.ROOT);
    if (lower.contains("\r\ntransfer-encoding: chunked")) {
      while (true) {
        String line = readLine(in);
        if (line == null) {
          return false;
        }
        int semi = line.indexOf(';');
        long size = Long.parseLong((semi < 0 ? line : line.substring(0, semi)).strip(), 16);
        if (size == 0) {
          while (true) {
            String trailer = readLine(in);
            if (trailer == null) {
              return false;
            }
            if (trailer.isEmpty()) {
              return true;
            }
          }
        }
        if (skip(in, size + 2) < size + 2) {
          return false;
        }
      }
    }
    int cl = lower.indexOf("\r\ncontent-length:");
    if (cl >= 0) {
      int end = lower.indexOf("\r\n", cl + 2);
      long n = Long.parseLong(lower.substring(cl + 17, end < 0 ? lower.length() : end).strip());
      return in.readNBytes((int) n).length == n;
    }
    return true;
  }

  /** Reads and drops up to {@code n} bytes; how many came before the end of the stream. */
  private static long skip(InputStream in, long n) throws IOException {
    byte[] buf = new byte[8192];
    long done = 0;
    while (done < n) {
      int r = in.read(buf, 0, (int) Math.min(buf.length, n - done));
      if (r < 0) {
        return done;
      }
      done += r;
    }
    return done;
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int b = in.read(); b >= 0; b = in.read()) {
      if (b == '\n') {
        return line.substring(0, Math.max(0, line.length() - 1));
      }
      line.append((char) b);
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      s.close();
    }
  }
}
