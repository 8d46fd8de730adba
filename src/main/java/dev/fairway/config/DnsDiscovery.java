package dev.fairway.config;

/**
 * A service's {@code discovery}: its backends come from DNS answers.
 *
 * <p>Example: {@code "discovery": {"dns": "SRV", "name": "_api._tcp.example"}} makes one backend
 * per SRV target, with the target's port and weight, looked up again every 30 s or sooner when the
 * answer's TTL is shorter; {@code {"dns": "A", "name": "api.internal", "port": 8080}} makes one
 * backend {@code http://IP:8080} per address, looked up every 30 s. {@link #NONE} means the
 * backends listed in the config are all there is.
 *
 * @param type       {@code A} or {@code SRV}; empty for {@link #NONE}
 * @param name       the name to resolve
 * @param refreshMs  the longest time between lookups (a shorter SRV TTL resolves sooner)
 * @param port       the backends' port, for {@code A} (SRV answers carry their own)
 * @param scheme     {@code http}, {@code h2c} or {@code https}: how Fairway speaks to the backends
 * @param serverHost the DNS server to ask; empty for the system resolver's
 * @param serverPort its port (53 by default); 0 with an empty {@code serverHost}
 * @param capacity   the capacity of each discovered backend (the service's {@code slots.capacity} by default)
 */
public record DnsDiscovery(String type, String name, long refreshMs, int port, String scheme, String serverHost,
                           int serverPort, int capacity) {
  /** No discovery. */
  public static final DnsDiscovery NONE = new DnsDiscovery("", "", 0, 0, "http", "", 0, 0);
  /** The lookup kinds. */
  public static final String A = "A";
  /** See {@link #A}. */
  public static final String SRV = "SRV";

  /** Whether DNS discovery is configured. */
  public boolean enabled() {
    return !type.isEmpty();
  }

  /** What {@code GET /api/services} and {@code /metrics} name as its backends' source, e.g. {@code dns:SRV _api._tcp.example}. */
  public String source() {
    return "dns:" + type + " " + name;
  }
}
