package dev.fairway.cluster;

import dev.fairway.config.FairwayConfig;

/**
 * The stable name a member claims its subsetting client id by.
 *
 * <p>Example: {@code cluster.nodeName: "edge-a"} is {@code edge-a}; without it, host
 * {@code web-3.dc1} with {@code proxy.port} 8080 is {@code web-3.dc1:8080}, and with cleartext off
 * ({@code proxy.port: -1}) and admin port 9090, {@code web-3.dc1:9090}. So a restart on the same
 * machine and port is the same member again and gets its id back.
 */
public final class NodeName {
  private NodeName() {
  }

  /** The configured name, else {@code hostName:port}. */
  public static String of(FairwayConfig config, String hostName) {
    if (!config.cluster().nodeName().isEmpty()) {
      return config.cluster().nodeName();
    }
    int port = config.proxy().port() > 0 ? config.proxy().port() : config.admin().port();
    return hostName + ":" + port;
  }
}
