package dev.fairway.config;

import java.util.List;

/**
 * The admin listener.
 *
 * <p>Example: {@code {"host": "127.0.0.1", "port": 9090, "token": "s3cret-token-0123",
 * "allowedHosts": ["fairway.internal"]}} answers {@code Host: 127.0.0.1:9090},
 * {@code localhost:9090} and {@code fairway.internal:9090}, and refuses {@code Host: evil.example}
 * (DNS rebinding); the environment variable {@code FAIRWAY_ADMIN_TOKEN} overrides the token.
 *
 * @param host         address to bind
 * @param port         port to bind (0 picks a free one)
 * @param token        bearer token every mutation must carry
 * @param allowedHosts lower-case host names accepted in {@code Host} besides IP addresses,
 *                     {@code localhost} and {@code host} when it is a name
 */
public record AdminSettings(String host, int port, String token, List<String> allowedHosts) {
  public AdminSettings {
    allowedHosts = List.copyOf(allowedHosts);
  }

  /** Settings with no extra allowed host names. */
  public AdminSettings(String host, int port, String token) {
    this(host, port, token, List.of());
  }

  @Override
  public String toString() {
    return "AdminSettings[host=" + host + ", port=" + port + ", token=***, allowedHosts=" + allowedHosts + "]";
  }
}
