package dev.fairway.testing;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A rolling restart under load: three (or more) {@link LameDuckBackend} processes behind a proxy,
 * continuous load at a fixed concurrency, and each backend restarted in turn with SIGTERM, the
 * way a job scheduler does it. Counts every non-200 answer and every failed request as an error
 * and records every latency.
 *
 * <p>Example (from a test): {@code var drill = new RollingRestartDrill(options); drill.startBackends();}
 * then start the proxy in front of {@code options.ports()}, then {@code drill.run()} gives e.g.
 * {@code fairway: 9120 requests, 0 errors, p99 14.2 ms, p99.9 31.0 ms, slowest 88.4 ms}.
 *
 * <p>From the command line ({@code bench/rolling-restart.sh}) against a proxy already listening:
 * {@code java -cp CP dev.fairway.testing.RollingRestartDrill --label fairway --target
 * http://127.0.0.1:18080/ --ports 19101,19102,19103 --admin http://127.0.0.1:18090 --token T
 * --concurrency 20 --warmup-ms 3000 --load-ms 8000}. Its last line is machine-readable:
 * {@code RESULT fairway requests=9120 errors=0 p50=4.1 p99=14.2 p999=31.0 max=88.4}.
 *
 * <p>{@code -Ddrill.backendArgs="--idle-close-ms 2 --warmup-requests 0"} passes extra arguments
 * to every backend, e.g. a tiny keep-alive timeout that makes stale pooled connections common.
 */
public final class RollingRestartDrill implements AutoCloseable {

  /**
   * @param label         name in the report, e.g. {@code fairway}
   * @param target        the proxy URL the load goes to
   * @param ports         backend ports, one backend each, restarted in this order
   * @param admin         Fairway's admin URL for the backends' lame-duck calls, or {@code null}
   * @param token         the admin bearer token
   * @param concurrency   requests in flight at all times
   * @param warmupMs      load before measuring (and until every backend answered)
   * @param loadMs        measured load before the first restart and after each restart
   * @param workMs        each backend's simulated work per request
   * @param classpath     class path of the backend processes
   * @param log           where events go as they happen
   */
  public record Options(String label, String target, List<Integer> ports, String admin, String token,
                        int concurrency, long warmupMs, long loadMs, long workMs, String classpath, PrintStream log) {
  }

  /**
   * @param requests   measured requests (started after warm-up)
   * @param errors     non-200 answers and failed requests among them
   * @param errorKinds error kind to count
   * @param p50        median latency, ms
   * @param p99        ms
   * @param p999       ms
   * @param max        slowest, ms
   * @param slowest    the slowest requests, each with its start time and what happened around it
   * @param served     backend id (from the response body) to requests, per phase: "before" and
   *                   "after bN restart"
   * @param events     the drill's timeline (ms since measuring began)
   */
  public record Result(String label, int requests, int errors, Map<String, Integer> errorKinds, double p50,
                       double p99, double p999, double max, List<String> slowest,
                       Map<String, Map<String, Integer>> served, List<String> events) {

    public String summary() {
      return String.format(Locale.ROOT, "%s: %d requests, %d errors %s, p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, "
          + "slowest %.1f ms", label, requests, errors, errorKinds, p50, p99, p999, max);
    }

    public String resultLine() {
      return String.format(Locale.ROOT, "RESULT %s requests=%d errors=%d p50=%.1f p99=%.1f p999=%.1f max=%.1f",
          label, requests, errors, p50, p99, p999, max);
    }
  }

  private record Sample(long startNanos, long latencyNanos, String error, String body, int phase) {
  }

  private final Options o;
  private final List<BackendProcess> backends = new ArrayList<>();
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  private final List<Sample> samples = new ArrayList<>();
  private final List<String> phaseNames = new ArrayList<>(List.of("before"));
  private volatile long measureStart = Long.MAX_VALUE;
  private volatile int phase;
  private volatile boolean probeStop;
  private final long t0 = System.nanoTime();

  public RollingRestartDrill(Options options) {
    this.o = options;
  }

  /** Starts every backend process and waits until each listens. */
  public void startBackends() throws Exception {
    for (int i = 0; i < o.ports().size(); i++) {
      BackendProcess b = new BackendProcess("b" + (i + 1), o.ports().get(i));
      backends.add(b);
      b.start();
    }
    for (BackendProcess b : backends) {
      b.awaitReady();
    }
  }

  /** The ids the backends answer with, in port order: b1, b2, ... */
  public List<String> backendIds() {
    return backends.stream().map(b -> b.id).toList();
  }

  /** Warms up, measures, restarts each backend in turn under load, and reports. */
  public Result run() throws Exception {
    Vertx vertx = TestVertx.create();
    try {
      HttpClientAgent client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true),
          new PoolOptions().setHttp1MaxSize(o.concurrency()));
      Load load = new Load(client);
      Thread probe = new Thread(this::probeHiccups, "hiccup-probe");
      probe.setDaemon(true);
      probe.start();
      load.start();
      long warmEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(o.warmupMs());
      long warmLimit = warmEnd + TimeUnit.SECONDS.toNanos(20);
      while (System.nanoTime() < warmEnd || (!load.seenAll() && System.nanoTime() < warmLimit)) {
        Thread.sleep(20);
      }
      if (!load.seenAll()) {
        event("warning: not every backend answered during warm-up");
      }
      measureStart = System.nanoTime();
      event("measuring (JVM uptime " + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime()
          + " ms)");
      Thread.sleep(o.loadMs());
      for (BackendProcess b : backends) {
        b.restart();
        phaseNames.add("after " + b.id + " restart");
        phase = phaseNames.size() - 1;
        Thread.sleep(o.loadMs());
      }
      load.stop();
      probeStop = true;
      event("load stopped");
      return result();
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /**
   * Notes every time this JVM could not run a sleeping thread for 50 ms or more past its wake-up
   * time (like jHiccup): a pause of the whole process (GC, safepoint, no CPU on a busy machine)
   * rather than of the proxy's own logic.
   */
  private void probeHiccups() {
    while (!probeStop) {
      long before = System.nanoTime();
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        return;
      }
      long late = (System.nanoTime() - before) / 1_000_000 - 5;
      if (late >= 50 && before >= measureStart) {
        event("hiccup: this JVM stalled " + late + " ms");
      }
    }
  }

  private Result result() {
    List<Sample> measured;
    synchronized (samples) {
      measured = samples.stream().filter(s -> s.startNanos() >= measureStart).toList();
    }
    long[] lat = measured.stream().mapToLong(Sample::latencyNanos).sorted().toArray();
    Map<String, Integer> kinds = new TreeMap<>();
    Map<String, Map<String, Integer>> served = new LinkedHashMap<>();
    phaseNames.forEach(p -> served.put(p, new TreeMap<>()));
    int errors = 0;
    for (Sample s : measured) {
      if (s.error() != null) {
        errors++;
        kinds.merge(s.error(), 1, Integer::sum);
      } else {
        served.get(phaseNames.get(s.phase())).merge(s.body(), 1, Integer::sum);
      }
    }
    List<String> slowest = measured.stream()
        .sorted((a, b) -> Long.compare(b.latencyNanos(), a.latencyNanos()))
        .limit(5)
        .map(s -> String.format(Locale.ROOT, "%.1f ms, started at %d ms, %s", s.latencyNanos() / 1e6,
            (s.startNanos() - measureStart) / 1_000_000, s.error() == null ? "answered by " + s.body() : s.error()))
        .toList();
    return new Result(o.label(), lat.length, errors, kinds, pct(lat, 0.50), pct(lat, 0.99), pct(lat, 0.999),
        lat.length == 0 ? 0 : lat[lat.length - 1] / 1e6, slowest, served, List.copyOf(events));
  }

  private static double pct(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }

  private void event(String what) {
    long base = measureStart == Long.MAX_VALUE ? t0 : measureStart;
    String line = String.format(Locale.ROOT, "%7d ms  %s", (System.nanoTime() - base) / 1_000_000, what);
    events.add(line);
    o.log().println("[" + o.label() + "] " + line);
  }

  @Override
  public void close() {
    for (BackendProcess b : backends) {
      b.kill();
    }
  }

  /** {@code concurrency} loops, each sending its next request when the last one ended. */
  private final class Load {
    private final HttpClientAgent client;
    private final RequestOptions request;
    private volatile boolean stopping;
    private final CountDownLatch stopped;
    private final Map<String, Boolean> seen = new HashMap<>();

    Load(HttpClientAgent client) {
      this.client = client;
      this.request = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(o.target())
          .setConnectTimeout(5000).setIdleTimeout(10_000);
      this.stopped = new CountDownLatch(o.concurrency());
    }

    void start() {
      for (int i = 0; i < o.concurrency(); i++) {
        next();
      }
    }

    boolean seenAll() {
      synchronized (seen) {
        return backendIds().stream().allMatch(seen::containsKey);
      }
    }

    private void next() {
      if (stopping) {
        stopped.countDown();
        return;
      }
      long start = System.nanoTime();
      int ph = phase;
      client.request(request)
          .compose(r -> r.send())
          .compose((HttpClientResponse resp) -> resp.body().map(b -> resp.statusCode() == 200
              ? "ok:" + b.toString().trim()
              : "HTTP " + resp.statusCode() + " " + b.toString().trim()))
          .onComplete(ar -> {
            long latency = System.nanoTime() - start;
            String error = null;
            String body = null;
            if (ar.failed()) {
              error = ar.cause().getClass().getSimpleName() + ": " + ar.cause().getMessage();
            } else if (ar.result().startsWith("ok:")) {
              body = ar.result().substring(3);
              synchronized (seen) {
                seen.put(body, true);
              }
            } else {
              error = ar.result();
            }
            if (error != null && start >= measureStart) {
              event("error: " + error);
            }
            synchronized (samples) {
              samples.add(new Sample(start, latency, error, body, ph));
            }
            next();
          });
    }

    void stop() throws InterruptedException {
      stopping = true;
      if (!stopped.await(30, TimeUnit.SECONDS)) {
        event("warning: load did not stop within 30 s");
      }
    }
  }

  /** One {@link LameDuckBackend} JVM; restarts on the same port. */
  private final class BackendProcess {
    private final String id;
    private final int port;
    private Process process;
    private CompletableFuture<Void> ready;

    BackendProcess(String id, int port) {
      this.id = id;
      this.port = port;
    }

    void start() throws IOException {
      List<String> cmd = new ArrayList<>(List.of(javaBin(), "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
          "-cp", o.classpath(), LameDuckBackend.class.getName(),
          "--port", Integer.toString(port), "--id", id, "--work-ms", Long.toString(o.workMs())));
      if (o.admin() != null) {
        cmd.addAll(List.of("--admin", o.admin(), "--token", o.token()));
      }
      String extra = System.getProperty("drill.backendArgs", "").trim();
      if (!extra.isEmpty()) {
        cmd.addAll(Arrays.asList(extra.split("\\s+")));
      }
      ready = new CompletableFuture<>();
      process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      CompletableFuture<Void> r = ready;
      Process p = process;
      Thread reader = new Thread(() -> {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = in.readLine()) != null) {
            if (line.startsWith("READY ")) {
              r.complete(null);
            } else {
              event(line);
            }
          }
        } catch (IOException e) {
          // the process went away
        }
        r.completeExceptionally(new IllegalStateException(id + " exited before it was ready"));
      }, id + "-output");
      reader.setDaemon(true);
      reader.start();
    }

    void awaitReady() throws Exception {
      ready.get(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, wait for the exit, start again on the same port, wait until it listens. */
    void restart() throws Exception {
      event("SIGTERM " + id);
      // ProcessHandle.destroy sends SIGTERM like Process.destroy, but leaves the output pipe
      // open, so what the backend logs while it shuts down still arrives.
      process.toHandle().destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        event(id + " did not exit within 30 s; killing it");
        process.destroyForcibly().waitFor();
      }
      event(id + " exited with status " + process.exitValue());
      start();
      awaitReady();
      event(id + " restarted and listening");
    }

    void kill() {
      if (process != null && process.isAlive()) {
        process.destroyForcibly();
      }
    }
  }

  private static String javaBin() {
    return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The class path to start backends with: surefire's test class path when run from a test. */
  public static String testClasspath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  /** Free loopback ports (free when asked; the caller binds them soon after): {@link FreePorts#take}. */
  public static List<Integer> freePorts(int n) throws IOException {
    return FreePorts.take(n);
  }

  /** Prints a report of {@code r}: summary, slowest requests, traffic per phase, timeline. */
  public static void print(Result r, PrintStream out) {
    out.println(r.summary());
    out.println("  slowest:");
    r.slowest().forEach(s -> out.println("    " + s));
    out.println("  served per phase:");
    r.served().forEach((phase, counts) -> out.println("    " + phase + ": " + counts));
    out.println("  timeline:");
    r.events().forEach(e -> out.println("    " + e));
  }

  /** Command-line entry point; see the class comment. */
  public static void main(String[] argv) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) {
      a.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
    }
    List<Integer> ports = Arrays.stream(a.getOrDefault("ports", "19101,19102,19103").split(","))
        .map(String::trim).map(Integer::parseInt).toList();
    Options options = new Options(a.getOrDefault("label", "proxy"), a.get("target"), ports, a.get("admin"),
        a.getOrDefault("token", ""), Integer.parseInt(a.getOrDefault("concurrency", "20")),
        Long.parseLong(a.getOrDefault("warmup-ms", "3000")), Long.parseLong(a.getOrDefault("load-ms", "8000")),
        Long.parseLong(a.getOrDefault("work-ms", "5")), a.getOrDefault("classpath", testClasspath()), System.out);
    if (options.target() == null) {
      System.err.println("--target is required");
      System.exit(2);
    }
    try (RollingRestartDrill drill = new RollingRestartDrill(options)) {
      Runtime.getRuntime().addShutdownHook(new Thread(drill::close));
      drill.startBackends();
      Result r = drill.run();
      print(r, System.out);
      System.out.println(r.resultLine());
    }
    System.exit(0);
  }
}
