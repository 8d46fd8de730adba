package dev.fairway.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for processes a test starts later, chosen below the kernel's ephemeral range.
 *
 * <p>Example: {@code FreePorts.take(3)} gives e.g. {@code [24117, 29802, 21055]}: free now, and no
 * {@code bind(0)} or outgoing connection of this or any other process can take them before the
 * child that was promised one binds it. A port from {@code new ServerSocket(0)} has no such
 * guarantee: the next backend a test starts on port 0 may get it (a Hazelcast member then talks
 * to an HTTP server and never joins).
 */
public final class FreePorts {

  private static final int FLOOR = 10_000;

  private FreePorts() {
  }

  /** {@code n} distinct ports free on 127.0.0.1 at the time of the call. */
  public static List<Integer> take(int n) throws IOException {
    int ceiling = ephemeralLow();
    List<Integer> ports = new ArrayList<>();
    for (int tries = 0; ports.size() < n; tries++) {
      if (tries > 10_000) {
        throw new IOException("no free port below " + ceiling);
      }
      int port = ThreadLocalRandom.current().nextInt(FLOOR, ceiling);
      if (!ports.contains(port) && bindable(port)) {
        ports.add(port);
      }
    }
    return ports;
  }

  /** One port, as {@link #take}. */
  public static int one() throws IOException {
    return take(1).get(0);
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The low end of Linux's ephemeral range (32768 when it cannot be read). */
  private static int ephemeralLow() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      int low = Integer.parseInt(range.split("\\s+")[0]);
      return low > FLOOR + 1000 ? low : 32_768;
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }
}
