package dev.fairway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line's contract: an invalid config file stops start-up with exit code 2 and one
 * stderr line per problem. Runs {@code dev.fairway.Main} in a child JVM on the test classpath.
 */
@Timeout(60)
class MainTest {
  @TempDir
  Path dir;

  @Test
  void invalidConfigExitsWithTwoAndOneLinePerProblem() throws Exception {
    Path conf = write("bad.json", """
        {"proxy": {"port": 70000},
         "services": [{"name": "api", "strategy": "fastest", "backends": [{"url": "http://127.0.0.1:9001"}]}]}
        """);

    Result r = runMain(conf);

    assertThat(r.exitCode()).isEqualTo(Main.EXIT_CONFIG);
    assertThat(r.stderr()).containsExactly(
        "fairway: invalid configuration " + conf + ":",
        "  proxy.port: 70000 is invalid; expected an integer from -1 to 65535",
        "  services[0].strategy: \"fastest\" is invalid; expected one of round-robin, least-loaded, "
            + "weighted-round-robin, slot-queue, fair-share, interleaved-weighted-round-robin, p2c-peak-ewma");
  }

  @Test
  void badUpstreamTlsExitsWithTwoAndOneLinePerProblem() throws Exception {
    String clientPem = Path.of("src/test/resources/upstream-tls/client.pem").toAbsolutePath().toString();
    String backendKey = Path.of("src/test/resources/upstream-tls/backend.key").toAbsolutePath().toString();
    Path conf = write("tls.json", """
        {"services": [{"name": "api", "backends": [{"url": "https://127.0.0.1:9443"}],
                       "tls": {"caPath": "/no/such/ca.pem", "verify": "yes", "certPath": "%s", "keyPath": "%s"}}]}
        """.formatted(clientPem, backendKey));

    Result r = runMain(conf);

    assertThat(r.exitCode()).isEqualTo(Main.EXIT_CONFIG);
    assertThat(r.stderr()).containsExactly(
        "fairway: invalid configuration " + conf + ":",
        "  services[0].tls.caPath: \"/no/such/ca.pem\" is invalid; expected a readable file (no such file)",
        "  services[0].tls.verify: \"yes\" is invalid; expected true or false",
        "  services[0].tls.keyPath: \"" + backendKey + "\" is invalid; expected the private key of the first "
            + "certificate in certPath " + clientPem + " (this key does not match it)");
  }

  @Test
  void unknownTlsProviderExitsWithTwo() throws Exception {
    Path conf = write("ok.json", """
        {"services": [{"name": "api", "backends": [{"url": "http://127.0.0.1:9001"}]}]}
        """);

    Result r = runMain(conf, "-Dfairway.tls.provider=boring");

    assertThat(r.exitCode()).isEqualTo(Main.EXIT_CONFIG);
    assertThat(r.stderr()).containsExactly("fairway: -Dfairway.tls.provider must be openssl or jdk, not 'boring'");
  }

  @Test
  void backendUrlWithAnUnknownSchemeExitsWithTwo() throws Exception {
    Path conf = write("h2.json", """
        {"services": [{"name": "api", "backends": [{"url": "h2://127.0.0.1:9001"}]}]}
        """);

    Result r = runMain(conf);

    assertThat(r.exitCode()).isEqualTo(Main.EXIT_CONFIG);
    assertThat(r.stderr()).containsExactly("fairway: invalid configuration " + conf + ":",
        "  services[0].backends[0].url: \"h2://127.0.0.1:9001\" is invalid; expected http://host:port, "
            + "https://host:port or h2c://host:port with no path, query or user");
  }

  @Test
  void nonJsonExitsWithTwo() throws Exception {
    Path conf = write("broken.json", "{\"services\": [ oops");

    Result r = runMain(conf);

    assertThat(r.exitCode()).isEqualTo(Main.EXIT_CONFIG);
    assertThat(r.stderr()).hasSize(2);
    assertThat(r.stderr().get(0)).isEqualTo("fairway: invalid configuration " + conf + ":");
    assertThat(r.stderr().get(1)).startsWith("  $: not valid JSON (");
  }

  @Test
  void missingFileExitsWithTwo() throws Exception {
    Path conf = dir.resolve("absent.json");

    Result r = runMain(conf);

    assertThat(r.exitCode()).isEqualTo(Main.EXIT_CONFIG);
    assertThat(r.stderr()).containsExactly("fairway: invalid configuration " + conf + ":",
        "  $: file not found; expected a JSON config file");
  }

  @Test
  void checkOfAValidConfigPrintsItsSizeAndExitsZeroWithoutOpeningItsPort() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Path conf = write("ok.json", """
          {"proxy": {"host": "127.0.0.1", "port": %d},
           "services": [{"name": "api", "backends": [{"url": "http://127.0.0.1:9001"},
                                                     {"url": "http://127.0.0.1:9002"}]},
                        {"name": "web", "match": {"pathPrefix": "/web"},
                         "backends": [{"url": "http://127.0.0.1:9003"}]}]}
          """.formatted(taken.getLocalPort()));

      Result r = run(List.of(), "--check", "-conf", conf.toString());

      assertThat(r.stderr()).isEmpty();
      assertThat(r.stdout()).containsExactly("configuration ok: " + conf + " (2 services, 3 backends)");
      assertThat(r.exitCode()).isZero();
    }
  }

  @Test
  void checkOfAnInvalidConfigExitsWithTwoAndOneLinePerProblem() throws Exception {
    Path conf = write("bad.json", """
        {"proxy": {"port": 70000}, "services": [{"name": "api", "backends": [{"url": "ftp://127.0.0.1:9001"}]}]}
        """);

    Result r = run(List.of(), "--check", "-conf", conf.toString());

    assertThat(r.exitCode()).isEqualTo(Main.EXIT_CONFIG);
    assertThat(r.stdout()).isEmpty();
    assertThat(r.stderr()).containsExactly("fairway: invalid configuration " + conf + ":",
        "  proxy.port: 70000 is invalid; expected an integer from -1 to 65535",
        "  services[0].backends[0].url: \"ftp://127.0.0.1:9001\" is invalid; expected http://host:port, "
            + "https://host:port or h2c://host:port with no path, query or user");
  }

  @Test
  void versionPrintsThePomVersion() throws Exception {
    Result r = run(List.of(), "--version");

    assertThat(r.exitCode()).isZero();
    assertThat(r.stdout()).containsExactly("fairway " + pomVersion());
  }

  /** The project's own {@code <version>}: the first one after {@code </parent>} or the artifactId. */
  private static String pomVersion() throws IOException {
    Matcher m = Pattern.compile("<artifactId>fairway</artifactId>\\s*<version>([^<]+)</version>")
        .matcher(Files.readString(Path.of("pom.xml")));
    assertThat(m.find()).isTrue();
    return m.group(1);
  }

  private Path write(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text);
  }

  /** Exit code, stdout and stderr lines of a finished child process. */
  private record Result(int exitCode, List<String> stderr, List<String> stdout) {
  }

  private Result runMain(Path conf, String... jvmOptions) throws Exception {
    return run(List.of(jvmOptions), "-conf", conf.toString());
  }

  /**
   * Runs {@code java -cp <this JVM's classpath> dev.fairway.Main args} without
   * {@code FAIRWAY_ADMIN_TOKEN} in its environment and waits (bounded) for it to exit.
   */
  private Result run(List<String> jvmOptions, String... args) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Path err = dir.resolve("stderr.txt");
    Path out = dir.resolve("stdout.txt");
    List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx64m"));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.fairway.Main"));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command)
        .redirectOutput(out.toFile())
        .redirectError(err.toFile());
    pb.environment().remove("FAIRWAY_ADMIN_TOKEN");
    Process p = pb.start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("Main did not exit within 30 s");
    }
    return new Result(p.exitValue(), Files.readAllLines(err, StandardCharsets.UTF_8),
        Files.readAllLines(out, StandardCharsets.UTF_8));
  }
}
