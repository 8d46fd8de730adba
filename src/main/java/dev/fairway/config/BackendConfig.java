package dev.fairway.config;

/**
 * One backend of a service, with its effective capacity.
 *
 * <p>Example: {@code {"id": "b1", "url": "http://127.0.0.1:9001", "capacity": 3}} becomes
 * {@code BackendConfig[id=b1, url=http://127.0.0.1:9001, host=127.0.0.1, port=9001, capacity=3,
 * weight=1]}; without {@code id} the id is {@code 127.0.0.1:9001}, without {@code capacity} the
 * service's {@code slots.capacity} applies. {@code "url": "https://10.0.0.7"} is port 443 and
 * {@link #tls()}: Fairway speaks TLS to it, as its service's {@link UpstreamTls} says, and HTTP/2 if
 * the backend picks {@code h2} by ALPN. {@code "url": "h2c://10.0.0.7:50051"} is {@link #h2c()}:
 * HTTP/2 with prior knowledge over cleartext (a gRPC server), port 80 when absent.
 *
 * @param id       stable identity; the same id in several services is one backend
 * @param url      the backend's base URL, {@code http://host:port} ({@code https://}, {@code h2c://})
 * @param host     host part of the URL
 * @param port     port of the URL (80 when absent)
 * @param capacity on-proxy capacity (most active requests from this process)
 * @param weight   configured weight, multiplies the capability score
 */
public record BackendConfig(String id, String url, String host, int port, int capacity, int weight) {
  /** Whether the URL is {@code https://}: connections to the backend use TLS. */
  public boolean tls() {
    return url.startsWith("https://");
  }

  /** Whether the URL is {@code h2c://}: connections to the backend speak HTTP/2 with prior knowledge. */
  public boolean h2c() {
    return url.startsWith("h2c://");
  }
}
