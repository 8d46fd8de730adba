package dev.fairway.discovery;

/**
 * A backend a DNS answer asks for, in the form the admin API's add-backends body takes.
 *
 * <p>Example: service {@code api} with {@code A} answer {@code 10.0.0.7} and port 8080 gives
 * {@code Discovered[id=api-10.0.0.7-8080, url=http://10.0.0.7:8080, capacity=100, weight=1]}.
 *
 * @param id       {@code <service>-<host>-<port>}: stable while the address stays in the answer
 * @param url      {@code scheme://host:port}
 * @param capacity its capacity
 * @param weight   its weight (an SRV record's; 1 for A records and SRV weight 0)
 */
public record Discovered(String id, String url, int capacity, int weight) {
  /** The id of the backend at {@code host:port} discovered for {@code service}. */
  public static String id(String service, String host, int port) {
    return service + "-" + host + "-" + port;
  }
}
