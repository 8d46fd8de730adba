package dev.fairway.proxy.tls;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code openssl s_client} and {@code curl} against the TLS listener, for what the JDK's client
 * will not send (TLS 1.1) and for a second, independent TLS stack; tests that use them are skipped
 * where the tool is not installed.
 *
 * <p>Example: {@code ExternalClients.openssl(port, "-tls1_2")} returns s_client's output, which
 * names {@code Protocol  : TLSv1.2} once the handshake succeeded.
 */
final class ExternalClients {
  private ExternalClients() {
  }

  /** Skips the test unless {@code tool} is an executable on the PATH. */
  static void assumeInstalled(String tool) {
    boolean found = false;
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      found |= new File(dir, tool).canExecute();
    }
    assumeTrue(found, tool + " is not installed");
  }

  /** {@code openssl s_client} to 127.0.0.1:port with the given options, sending nothing. */
  static String openssl(int port, String... options) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port));
    cmd.addAll(List.of(options));
    return run(cmd, "");
  }

  /**
   * {@code openssl s_client -ign_eof} that sends {@code GET /} with {@code Connection: close} and
   * reads until the server closes (so a TLS 1.3 session ticket, sent after the handshake, arrives).
   */
  static String opensslGet(int port, String... options) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("openssl", "s_client", "-ign_eof", "-connect", "127.0.0.1:" + port));
    cmd.addAll(List.of(options));
    return run(cmd, "GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n");
  }

  /** {@code curl -sS} with the given arguments. */
  static String curl(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "10"));
    cmd.addAll(List.of(args));
    return run(cmd, "");
  }

  /** Runs {@code cmd} with {@code input} on its stdin and returns its stdout and stderr. */
  private static String run(List<String> cmd, String input) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().write(input.getBytes(StandardCharsets.US_ASCII));
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    return new String(out, StandardCharsets.UTF_8);
  }
}
