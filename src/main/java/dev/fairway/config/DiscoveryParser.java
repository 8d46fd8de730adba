package dev.fairway.config;

import java.util.List;
import java.util.Locale;

/**
 * Reads and validates a service's {@code discovery} object, recording each problem on the
 * {@link Node} with its JSON path.
 *
 * <p>Example: {@code {"dns": "A", "name": "api.internal", "scheme": "https"}} gives
 * {@code DnsDiscovery[A, api.internal, 30000, 443, https, "", 0, 100]} for a service whose
 * {@code slots.capacity} is 100; {@code {"dns": "MX", ...}} at {@code services[0].discovery}
 * records {@code services[0].discovery.dns: "MX" is invalid; expected A or SRV}.
 */
final class DiscoveryParser {
  private static final List<String> SCHEMES = List.of("http", "h2c", "https");

  private DiscoveryParser() {
  }

  /** {@link DnsDiscovery#NONE} when the service has no {@code discovery}. */
  static DnsDiscovery parse(Node service, int defaultCapacity) {
    if (!service.has("discovery")) {
      return DnsDiscovery.NONE;
    }
    Node n = service.object("discovery");
    String type = n.requiredString("dns");
    if (type != null && !type.equals(DnsDiscovery.A) && !type.equals(DnsDiscovery.SRV)) {
      n.problem("dns", type, "A or SRV");
    }
    String name = n.requiredString("name");
    if (name != null && !HostName.isValid(name.endsWith(".") ? name.substring(0, name.length() - 1) : name)) {
      n.problem("name", name, "a DNS name like api.internal or _api._tcp.example");
    }
    String scheme = n.string("scheme", "http").toLowerCase(Locale.ROOT);
    if (!SCHEMES.contains(scheme)) {
      n.problem("scheme", scheme, "one of " + String.join(", ", SCHEMES));
    }
    int port = n.intIn("port", scheme.equals("https") ? 443 : 80, 1, 65535);
    if (n.has("port") && DnsDiscovery.SRV.equals(type)) {
      n.problem("port", n.value("port"), "no port with SRV (each SRV answer names its own)");
    }
    long refreshMs = n.longIn("refreshMs", 30_000, 1000, 3_600_000);
    int capacity = n.intIn("capacity", defaultCapacity, 1, 1_000_000);
    String server = n.string("server", "");
    String host = "";
    int serverPort = 0;
    if (!server.isEmpty()) {
      int colon = server.lastIndexOf(':');
      host = colon < 0 ? server : server.substring(0, colon);
      serverPort = colon < 0 ? 53 : portOf(server.substring(colon + 1));
      if (serverPort == 0 || !HostName.isValid(host)) {
        n.problem("server", server, "a DNS server address like 10.0.0.2 or 127.0.0.1:5353");
      }
    }
    n.rejectUnknownKeys();
    if (type == null || name == null) {
      return DnsDiscovery.NONE;
    }
    return new DnsDiscovery(type, name, refreshMs, port, scheme, host, serverPort, capacity);
  }

  private static int portOf(String text) {
    try {
      int p = Integer.parseInt(text);
      return p >= 1 && p <= 65535 ? p : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
