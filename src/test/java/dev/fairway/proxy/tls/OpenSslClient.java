package dev.fairway.proxy.tls;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code openssl s_client} against the TLS listener, for what the JDK's client will not send
 * (TLS 1.1); tests that use it are skipped where {@code openssl} is not installed.
 *
 * <p>Example: {@code OpenSslClient.run(port, "-tls1_2")} returns s_client's output, which names
 * {@code Protocol  : TLSv1.2} once the handshake succeeded.
 */
final class OpenSslClient {
  private OpenSslClient() {
  }

  static void assumeInstalled() {
    boolean found = false;
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      found |= new File(dir, "openssl").canExecute();
    }
    assumeTrue(found, "openssl is not installed");
  }

  /** Connects to 127.0.0.1:port with the given options, sends nothing, and returns stdout and stderr. */
  static String run(int port, String... options) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port));
    cmd.addAll(List.of(options));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }
}
