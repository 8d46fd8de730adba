package dev.fairway.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback backend with one real fault, on blocking sockets (one thread per connection), that
 * also keeps a ledger of the {@code X-Request-Id} of every request head it read.
 *
 * <p>Example: {@code FaultBackend.start(Fault.HALF_CLOSE)} reads each request head and then shuts
 * its side of the connection down without a byte of response; {@code ledger()} lists the ids seen.
 */
public final class FaultBackend implements AutoCloseable {
  /** What the backend does wrong. */
  public enum Fault {
    /** Nothing listens: connects are refused. */
    REFUSED,
    /** Listens with a full backlog and never accepts: connects hang until the connect timeout. */
    BLACKHOLE,
    /** Reads the head, then resets the connection (RST) before any response byte. */
    RESET_BEFORE_HEADERS,
    /** Sends 200 with Content-Length 100000 and 1000 bytes, then closes. */
    DEATH_MID_BODY,
    /** Reads the head and never answers (until the proxy closes the connection). */
    SLOW_HEADERS,
    /** Sends the head at once and the 5-byte body one byte every 10 ms (a complete response). */
    SLOW_BODY,
    /** Reads the head, then half-closes (FIN) without responding. */
    HALF_CLOSE,
    /** Answers with bytes that are not HTTP. */
    GARBAGE,
    /** Answers with a 100 KB response head. */
    HEADERS_TOO_LARGE,
    /** Answers with both Transfer-Encoding and Content-Length. */
    TE_AND_CL,
    /** Answers with an obs-folded field line. */
    OBS_FOLD,
    /** Answers with a Content-Length that is not a number. */
    BAD_CONTENT_LENGTH
  }

  private final Fault fault;
  private final ServerSocket server;
  private final List<Socket> backlogFillers = new CopyOnWriteArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fault-backend");
    t.setDaemon(true);
    return t;
  });
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final ConcurrentHashMap<String, AtomicInteger> ledger = new ConcurrentHashMap<>();
  private final int port;

  private FaultBackend(Fault fault) throws IOException {
    this.fault = fault;
    if (fault == Fault.REFUSED) {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        port = s.getLocalPort();
      }
      server = null;
      return;
    }
    server = new ServerSocket(0, fault == Fault.BLACKHOLE ? 1 : 512, InetAddress.getLoopbackAddress());
    port = server.getLocalPort();
    if (fault == Fault.BLACKHOLE) {
      fillBacklog();
    } else {
      threads.execute(this::acceptLoop);
    }
  }

  /** Starts the backend (listening at once). */
  public static FaultBackend start(Fault fault) throws IOException {
    return new FaultBackend(fault);
  }

  public int port() {
    return port;
  }

  /** How many request heads carried each {@code X-Request-Id}. */
  public ConcurrentHashMap<String, AtomicInteger> ledger() {
    return ledger;
  }

  /** Opens connections until one no longer completes at once: the accept queue is then full. */
  private void fillBacklog() throws IOException {
    for (int i = 0; i < 16; i++) {
      Socket s = new Socket();
      try {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        backlogFillers.add(s);
      } catch (IOException e) {
        s.close();
        return;
      }
    }
    throw new IllegalStateException("backlog never filled");
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        open.add(s);
        threads.execute(() -> serve(s));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      while (true) {
        String head = readHead(in);
        if (head == null) {
          return;
        }
        record(head);
        skipBody(in, head);
        if (!answer(s, out)) {
          return;
        }
      }
    } catch (IOException | InterruptedException e) {
      // the proxy gave up on this connection: fine
    } finally {
      open.remove(s);
    }
  }

  /** Acts out the fault; {@code true} if the connection may carry another request. */
  private boolean answer(Socket s, OutputStream out) throws IOException, InterruptedException {
    switch (fault) {
      case RESET_BEFORE_HEADERS -> {
        s.setSoLinger(true, 0);
        return false;
      }
      case DEATH_MID_BODY -> {
        write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + "x".repeat(1000));
        return false;
      }
      case SLOW_HEADERS -> {
        while (s.getInputStream().read() >= 0) {
          // say nothing until the proxy gives up and closes
        }
        return false;
      }
      case SLOW_BODY -> {
        write(out, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
        for (char c : "hello".toCharArray()) {
          Thread.sleep(10);
          write(out, String.valueOf(c));
        }
        return true;
      }
      case HALF_CLOSE -> {
        s.shutdownOutput();
        while (s.getInputStream().read() >= 0) {
          // wait for the proxy to close its side
        }
        return false;
      }
      case GARBAGE -> {
        write(out, "garbage\r\n\r\n");
        return false;
      }
      case HEADERS_TOO_LARGE -> {
        write(out, "HTTP/1.1 200 OK\r\nX-Big: " + "b".repeat(100_000) + "\r\nContent-Length: 2\r\n\r\nok");
        return false;
      }
      case TE_AND_CL -> {
        write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n");
        return false;
      }
      case OBS_FOLD -> {
        write(out, "HTTP/1.1 200 OK\r\nX-A: one\r\n two\r\nContent-Length: 2\r\n\r\nok");
        return false;
      }
      case BAD_CONTENT_LENGTH -> {
        write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2x\r\n\r\nok");
        return false;
      }
      default -> throw new IllegalStateException(fault.name());
    }
  }

  private void record(String head) {
    for (String line : head.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("x-request-id")) {
        ledger.computeIfAbsent(line.substring(colon + 1).trim(), k -> new AtomicInteger()).incrementAndGet();
      }
    }
  }

  private static void skipBody(InputStream in, String head) throws IOException {
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        in.readNBytes(Integer.parseInt(line.substring(15).trim()));
      }
    }
  }

  private static void write(OutputStream out, String s) throws IOException {
    out.write(s.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        return null;
      }
      head.write(b);
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws Exception {
    if (server != null) {
      server.close();
    }
    for (Socket s : backlogFillers) {
      s.close();
    }
    for (Socket s : open) {
      s.close();
    }
    threads.shutdownNow();
    threads.awaitTermination(5, TimeUnit.SECONDS);
  }
}
