package dev.fairway.config;

import java.util.List;

/**
 * Embedded sample backends, started in the same process so a fresh checkout serves at once.
 *
 * <p>Example: {@code {"backends": [{"port": 9001}, {"port": 9002, "workMs": 5}]}} starts two
 * backends answering with their own id after a little simulated work.
 *
 * @param backends the sample backends
 */
public record DemoSettings(List<DemoBackend> backends) {
  public DemoSettings {
    backends = List.copyOf(backends);
  }

  /**
   * One sample backend.
   *
   * @param port   port it listens on, on 127.0.0.1
   * @param workMs simulated work per request
   */
  public record DemoBackend(int port, long workMs) {
  }
}
