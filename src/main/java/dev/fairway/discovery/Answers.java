package dev.fairway.discovery;

import dev.fairway.config.DnsDiscovery;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Turns a DNS answer into the backends a service should have: one per address (A) or per SRV
 * target and port of the lowest priority present, sorted by id, duplicates merged.
 *
 * <p>Example: for service {@code api} with {@code {"dns": "SRV", ...}} the answer
 * {@code [SrvAnswer[10, 5, 8080, web1.example., 30], SrvAnswer[10, 0, 8081, web2.example., 60],
 * SrvAnswer[20, 9, 8080, spare.example., 30]]} gives {@code api-web1.example-8080} (weight 5) and
 * {@code api-web2.example-8081} (weight 1: SRV weight 0 still serves); {@code spare.example} waits
 * until no priority-10 record is left. The next lookup is due after min(TTL) = 30 s, bounded by
 * {@code refreshMs} and at least 1 s.
 */
public final class Answers {
  /** The shortest time between two lookups. */
  public static final long MIN_REFRESH_MS = 1000;

  private Answers() {
  }

  /** The backends of an A answer: {@code scheme://ip:port} with the discovery's port, weight 1. */
  public static List<Discovered> fromA(String service, DnsDiscovery d, Collection<String> addresses) {
    Map<String, Discovered> out = new TreeMap<>();
    for (String ip : addresses) {
      String id = Discovered.id(service, ip, d.port());
      out.put(id, new Discovered(id, d.scheme() + "://" + ip + ":" + d.port(), d.capacity(), 1));
    }
    return List.copyOf(out.values());
  }

  /** The backends of an SRV answer's lowest priority, each with its record's port and weight. */
  public static List<Discovered> fromSrv(String service, DnsDiscovery d, Collection<SrvAnswer> records) {
    int lowest = records.stream().mapToInt(SrvAnswer::priority).min().orElse(0);
    Map<String, Discovered> out = new TreeMap<>();
    for (SrvAnswer r : records) {
      if (r.priority() != lowest) {
        continue;
      }
      String host = r.target().endsWith(".") ? r.target().substring(0, r.target().length() - 1) : r.target();
      String id = Discovered.id(service, host, r.port());
      out.merge(id, new Discovered(id, d.scheme() + "://" + host + ":" + r.port(), d.capacity(),
          Math.max(1, r.weight())), (a, b) -> a.weight() >= b.weight() ? a : b);
    }
    return List.copyOf(out.values());
  }

  /**
   * When to look up again: {@code refreshMs}, or sooner if the answer's shortest TTL is shorter,
   * never sooner than {@link #MIN_REFRESH_MS}.
   *
   * @param minTtlSeconds the shortest TTL of the answer; empty when the client does not tell (A)
   */
  public static long nextLookupMs(long refreshMs, OptionalLong minTtlSeconds) {
    long ttlMs = minTtlSeconds.isPresent() ? Math.multiplyExact(Math.max(0, minTtlSeconds.getAsLong()), 1000L) : refreshMs;
    return Math.max(MIN_REFRESH_MS, Math.min(refreshMs, ttlMs));
  }
}
