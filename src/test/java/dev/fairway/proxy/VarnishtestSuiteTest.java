package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fairway.Fairway;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the {@code .vtc} files under {@code src/test/resources/vtc/} with Varnish's
 * {@code varnishtest} as the client against an in-process Fairway, passing its address as the
 * macros {@code fairway_addr} and {@code fairway_port}. Skipped when {@code varnishtest} is not on
 * the PATH ({@code .ci/run} installs Debian's {@code varnish}).
 *
 * <p>Example: {@code varnishtest -q -Dfairway_addr=127.0.0.1 -Dfairway_port=40123 a01_te_and_cl.vtc}.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VarnishtestSuiteTest {

  @Test
  void vtcSuitePasses(Vertx vertx) throws Exception {
    File varnishtest = onPath("varnishtest");
    assumeTrue(varnishtest != null, "varnishtest is not installed (apt-get install -y varnish)");
    TestBackend b = TestBackend.start(vertx, req -> req.body().onSuccess(body -> req.response().end("ok")));
    Fairway fairway = TestFairway.start(vertx, TestConfig.service("web", backend("b", b.port(), 10)).build());
    Path dir = Path.of("src/test/resources/vtc");
    List<String> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.map(Path::toString).filter(n -> n.endsWith(".vtc")).sorted().toList();
    }
    assertThat(files).isNotEmpty();
    List<String> cmd = new ArrayList<>(List.of(varnishtest.getPath(), "-q", "-t", "10",
        "-Dfairway_addr=127.0.0.1", "-Dfairway_port=" + fairway.proxyPort()));
    cmd.addAll(files);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(100, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("varnishtest output:\n%s", output).isZero();
  }

  private static File onPath(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File f = new File(dir, name);
      if (f.canExecute()) {
        return f;
      }
    }
    return null;
  }
}
