package dev.fairway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.testing.FreePorts;
import dev.fairway.testing.TestClient;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Real Fairway JVMs ({@code dev.fairway.Main -cluster}) forming a Hazelcast cluster on loopback,
 * each with a config of the test's, and blocking admin calls to them.
 *
 * <p>Example: {@code ClusterHarness h = new ClusterHarness(vertx, dir, TOKEN, "api", 3);
 * Member first = h.launch(0, (proxy, admin) -> config); h.awaitServing(first, 60);} starts the
 * first member alone (it forms the cluster, so the others join it rather than split); {@link #close}
 * stops them all.
 */
final class ClusterHarness implements AutoCloseable {
  /** One Fairway child process and its ports. */
  record Member(int index, Process process, int proxyPort, int adminPort, Path log) {
  }

  /** A member's config from its proxy and admin ports. */
  @FunctionalInterface
  interface ConfigFor {
    JsonObject config(int proxyPort, int adminPort);
  }

  private final Vertx vertx;
  private final HttpClient client;
  private final Path dir;
  private final String token;
  private final String service;
  private final String clusterName = "fairway-test-" + UUID.randomUUID();
  private final int[] hazelcastPorts;
  private final List<Member> members = new ArrayList<>();

  /**
   * @param service the service {@link #service(Member)} reads
   * @param size    how many members the cluster may have (each gets a fixed Hazelcast port)
   */
  ClusterHarness(Vertx vertx, Path dir, String token, String service, int size) throws IOException {
    this.vertx = vertx;
    this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false));
    this.dir = dir;
    this.token = token;
    this.service = service;
    this.hazelcastPorts = new int[size];
    for (int i = 0; i < size; i++) {
      hazelcastPorts[i] = freePort();
    }
  }

  List<Member> members() {
    return members;
  }

  HttpClient client() {
    return client;
  }

  /** Starts member {@code index} with the config {@code config} gives for its ports. */
  Member launch(int index, ConfigFor config) throws IOException {
    return launch(index, config, i -> List.of());
  }

  /** Starts member {@code index} with JVM options (after the harness's own) from {@code jvmOptions}. */
  Member launch(int index, ConfigFor config, IntFunction<List<String>> jvmOptions) throws IOException {
    int proxyPort = freePort();
    int adminPort = freePort();
    int launch = members.size(); // a member restarted under the same index gets files of its own
    Path conf = Files.writeString(dir.resolve("config-" + launch + ".json"), config.config(proxyPort, adminPort).encode());
    Path clusterXml = Files.writeString(dir.resolve("cluster-" + launch + ".xml"),
        clusterXml(clusterName, hazelcastPorts[index], hazelcastPorts));
    Path log = dir.resolve("member-" + launch + ".log");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = new ArrayList<>(List.of(java.toString(), "-Xmx160m", "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC"));
    cmd.addAll(jvmOptions.apply(index));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.fairway.Main",
        "-cluster", "-cluster-conf", clusterXml.toString(), "-conf", conf.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().remove("FAIRWAY_ADMIN_TOKEN");
    pb.environment().remove(ClusterConfig.ENV);
    Member m = new Member(index, pb.start(), proxyPort, adminPort, log);
    members.add(m);
    return m;
  }

  /** Stops every member (SIGTERM, then SIGKILL after ten seconds). */
  @Override
  public void close() throws InterruptedException {
    for (Member m : members) {
      m.process().destroy();
    }
    for (Member m : members) {
      if (!m.process().waitFor(10, TimeUnit.SECONDS)) {
        m.process().destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    }
  }

  /** Hazelcast on one fixed loopback port, the three ports as TCP members, fast join and merge. */
  private static String clusterXml(String clusterName, int port, int[] all) {
    String memberList = Arrays.stream(all).mapToObj(p -> "<member>127.0.0.1:" + p + "</member>")
        .collect(Collectors.joining());
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <hazelcast xmlns="http://www.hazelcast.com/schema/config">
          <cluster-name>%s</cluster-name>
          <properties>
            <property name="hazelcast.logging.type">slf4j</property>
            <property name="hazelcast.phone.home.enabled">false</property>
            <property name="hazelcast.wait.seconds.before.join">0</property>
            <property name="hazelcast.max.join.seconds">3</property>
            <property name="hazelcast.merge.first.run.delay.seconds">5</property>
            <property name="hazelcast.merge.next.run.delay.seconds">5</property>
            <property name="hazelcast.heartbeat.interval.seconds">1</property>
            <property name="hazelcast.max.no.heartbeat.seconds">10</property>
            <property name="hazelcast.socket.bind.any">false</property>
          </properties>
          <network>
            <port auto-increment="false">%d</port>
            <interfaces enabled="true"><interface>127.0.0.1</interface></interfaces>
            <join>
              <auto-detection enabled="false"/>
              <multicast enabled="false"/>
              <tcp-ip enabled="true"><member-list>%s</member-list></tcp-ip>
            </join>
          </network>
          <multimap name="__vertx.subs">
            <backup-count>1</backup-count>
            <value-collection-type>SET</value-collection-type>
          </multimap>
        </hazelcast>
        """.formatted(clusterName, port, memberList);
  }

  static int freePort() throws IOException {
    return FreePorts.one();
  }

  /** The last 60 lines of every member's log, for failure messages. */
  String logs() {
    StringBuilder out = new StringBuilder();
    for (Member m : members) {
      out.append("---- member ").append(m.index()).append(" (")
          .append(m.process().isAlive() ? "running" : "exited " + m.process().exitValue()).append(")\n");
      try {
        List<String> lines = Files.readAllLines(m.log(), StandardCharsets.UTF_8);
        lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(l -> out.append(l).append('\n'));
      } catch (IOException e) {
        out.append(e).append('\n');
      }
    }
    return out.toString();
  }

  void awaitServing(Member m, int seconds) throws Exception {
    awaitTrue("member " + m.index() + " serving", seconds, () -> {
      if (!m.process().isAlive()) {
        throw new AssertionError("member " + m.index() + " exited with " + m.process().exitValue());
      }
      return serviceOrNull(m) != null;
    });
  }

  static void awaitTrue(String what, int seconds, Check check) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (check.ok()) {
          return;
        }
      } catch (AssertionError e) {
        throw e;
      } catch (Exception e) {
        last = e;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("not within " + seconds + " s: " + what + (last == null ? "" : " (last error: " + last + ")"));
  }

  @FunctionalInterface
  interface Check {
    boolean ok() throws Exception;
  }

  TestClient.Reply admin(Member m, HttpMethod method, String path, String body) throws Exception {
    RequestOptions options = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(m.adminPort())
        .setURI(path).putHeader("Authorization", "Bearer " + token);
    return TestClient.onLoop(vertx, () -> client.request(options)
            .compose(req -> body == null ? req.send() : req.send(Buffer.buffer(body)))
            .compose(resp -> resp.body().map(b -> new TestClient.Reply(resp.statusCode(), resp.headers(), b.toString()))))
        .await(10, TimeUnit.SECONDS);
  }

  /** The service's JSON from a member's {@code GET /api/services}; IllegalStateException if it fails. */
  JsonObject service(Member m) {
    TestClient.Reply r;
    try {
      r = TestClient.get(vertx, client, m.adminPort(), "/api/services");
    } catch (Exception e) {
      throw new IllegalStateException("GET /api/services on member " + m.index() + " failed: " + e, e);
    }
    if (r.status() != 200) {
      throw new IllegalStateException("GET /api/services on member " + m.index() + ": " + r.status() + " " + r.body());
    }
    JsonArray services = new JsonArray(r.body());
    for (int i = 0; i < services.size(); i++) {
      if (service.equals(services.getJsonObject(i).getString("name"))) {
        return services.getJsonObject(i);
      }
    }
    throw new IllegalStateException("no service " + service + " in " + r.body());
  }

  /** The service's JSON, or null while the member does not answer yet. */
  JsonObject serviceOrNull(Member m) {
    try {
      return service(m);
    } catch (RuntimeException e) {
      return null;
    }
  }

  static JsonObject backend(JsonObject service, String id) {
    return service.getJsonArray("backends").stream().map(JsonObject.class::cast)
        .filter(b -> id.equals(b.getString("id"))).findFirst().orElse(null);
  }

  /** The ids of the backends {@code service} lists as in the member's subset. */
  static Set<String> inSubset(JsonObject service) {
    Predicate<JsonObject> in = b -> b.getBoolean("inSubset");
    return service.getJsonArray("backends").stream().map(JsonObject.class::cast).filter(in)
        .map(b -> b.getString("id")).collect(Collectors.toCollection(TreeSet::new));
  }

  /** The lines of a member's log so far. */
  List<String> logLines(Member m) throws IOException {
    return Files.readAllLines(m.log(), StandardCharsets.UTF_8);
  }

  /** The bodies (backend ids) of {@code n} sequential requests through a member's proxy, all 200. */
  Set<String> bodies(Member m, int n) throws Exception {
    Set<String> seen = new TreeSet<>();
    for (int i = 0; i < n; i++) {
      TestClient.Reply r = TestClient.get(vertx, client, m.proxyPort(), "/");
      assertThat(r.status()).as("through member %d: %s", m.index(), r.body()).isEqualTo(200);
      seen.add(r.body());
    }
    return seen;
  }

  /** A member's {@code GET /metrics} text. */
  String metrics(Member m) throws Exception {
    TestClient.Reply r = TestClient.get(vertx, client, m.adminPort(), "/metrics");
    assertThat(r.status()).as("GET /metrics on member %d", m.index()).isEqualTo(200);
    return r.body();
  }
}
