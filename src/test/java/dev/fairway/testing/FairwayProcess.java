package dev.fairway.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fairway's {@code Main} in a process of its own, with the shipped {@code logback.xml}, and every
 * line it prints (standard output and error) collected.
 *
 * <p>Example: {@code try (FairwayProcess p = FairwayProcess.start(conf)) { int admin = p.adminPort();
 * p.signal("TERM"); p.waitForExit(20); }} runs Fairway until SIGTERM and keeps its log in
 * {@link #lines()}.
 */
public final class FairwayProcess implements AutoCloseable {
  private static final Pattern ADMIN = Pattern.compile("admin listening on http://127.0.0.1:(\\d+)");
  private static final Pattern PROXY = Pattern.compile("proxy listening on http://127.0.0.1:(\\d+)");
  private static final Pattern TLS = Pattern.compile("proxy listening on https://127.0.0.1:(\\d+)");

  private final Process process;
  private final List<String> lines = new ArrayList<>();
  private final Thread reader;

  private FairwayProcess(Process process) {
    this.process = process;
    this.reader = new Thread(this::read, "fairway-process-output");
    reader.start();
  }

  /** Starts {@code dev.fairway.Main -conf conf} on this JVM's class path. */
  public static FairwayProcess start(Path conf) throws IOException {
    return start(conf, List.of());
  }

  /** Starts it with JVM options first, e.g. {@code List.of("-Dio.netty.handler.ssl.noOpenSsl=true")}. */
  public static FairwayProcess start(Path conf, List<String> jvmOptions) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.fairway.Main", "-conf", conf.toString()));
    return new FairwayProcess(new ProcessBuilder(cmd).redirectErrorStream(true).start());
  }

  private void read() {
    try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        synchronized (lines) {
          lines.add(line);
        }
      }
    } catch (IOException e) {
      synchronized (lines) {
        lines.add("reader stopped: " + e);
      }
    }
  }

  /** A copy of the lines printed so far. */
  public List<String> lines() {
    synchronized (lines) {
      return new ArrayList<>(lines);
    }
  }

  /** The lines printed so far, once {@code done} holds for them or {@code seconds} have passed. */
  public List<String> await(Predicate<List<String>> done, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    List<String> now = lines();
    while (!done.test(now) && System.nanoTime() < deadline) {
      Thread.sleep(20);
      now = lines();
    }
    return now;
  }

  /** The admin port from the start-up log (waits up to 30 s for the proxy to listen), or -1. */
  public int adminPort() throws InterruptedException {
    return port(ADMIN);
  }

  /** The proxy port from the start-up log (waits up to 30 s), or -1. */
  public int proxyPort() throws InterruptedException {
    return port(PROXY);
  }

  /** The TLS listener's port from the start-up log (waits up to 30 s), or -1. */
  public int tlsPort() throws InterruptedException {
    return port(TLS, "proxy listening on https");
  }

  private int port(Pattern pattern) throws InterruptedException {
    return port(pattern, "proxy listening");
  }

  private int port(Pattern pattern, String awaited) throws InterruptedException {
    String log = String.join("\n", await(l -> String.join("\n", l).contains(awaited), 30));
    Matcher m = pattern.matcher(log);
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  /** Sends the signal ({@code TERM}, {@code KILL}, ...) with {@code kill}. */
  public void signal(String name) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start().waitFor(5, TimeUnit.SECONDS);
  }

  /** Whether the process ended within {@code seconds}; once it has, all of its output is read. */
  public boolean waitForExit(int seconds) throws InterruptedException {
    boolean ended = process.waitFor(seconds, TimeUnit.SECONDS);
    if (ended) {
      reader.join(5000);
    }
    return ended;
  }

  public int exitValue() {
    return process.exitValue();
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
