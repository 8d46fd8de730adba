package dev.fairway.config;

/**
 * A service's {@code discovery}: its backends come from DNS answers.
 *
 * <p>Example: {@code "discovery": {"dns": "SRV", "name": "_api._tcp.example"}} makes one backend
 * per SRV target, with the target's port and weight. {@link #NONE} means the backends listed in
 * the config are all there is.
 *
 * @param type      {@code A} or {@code SRV}; empty for {@link #NONE}
 * @param name      the name to resolve
 * @param refreshMs the longest time between lookups (a shorter TTL resolves sooner)
 */
public record DnsDiscovery(String type, String name, long refreshMs) {
  /** No discovery. */
  public static final DnsDiscovery NONE = new DnsDiscovery("", "", 0);

  /** Whether DNS discovery is configured. */
  public boolean enabled() {
    return !type.isEmpty();
  }
}
