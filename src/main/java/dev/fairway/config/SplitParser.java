package dev.fairway.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a service's {@code split} and checks it against the other services, recording each
 * problem with its JSON path.
 *
 * <p>Example: {@code "split": [{"service": "v1", "weight": 95}, {"service": "v2", "weight": 5}]}
 * gives two {@link SplitTarget}s; {@code {"service": "v3", "weight": 0}} at {@code services[0].split[1]}
 * records {@code services[0].split[1].weight: 0 is invalid; expected an integer from 1 to 10000}
 * and, with no service {@code v3}, {@code services[0].split[1].service: "v3" is invalid; expected
 * the name of a service with backends: v1, v2}.
 */
final class SplitParser {
  /** The largest weight of a split target. */
  static final int MAX_WEIGHT = 10_000;

  private SplitParser() {
  }

  /** The service's split targets; empty when it has no {@code split}. */
  static List<SplitTarget> targets(Node service) {
    if (!service.has("split")) {
      return List.of();
    }
    if (service.value("split") instanceof List<?> l && l.isEmpty()) {
      service.problemAt(service.child("split"), "empty; expected at least one {\"service\", \"weight\"}");
      return List.of();
    }
    List<SplitTarget> out = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (Node t : service.objects("split")) {
      String name = t.requiredString("service");
      if (!t.has("weight")) {
        t.problemAt(t.child("weight"), "missing; expected an integer from 1 to " + MAX_WEIGHT);
      }
      int weight = t.intIn("weight", 1, 1, MAX_WEIGHT);
      t.rejectUnknownKeys();
      if (name != null && seen.contains(name)) {
        t.problem("service", name, "each service once in a split");
      } else if (name != null) {
        seen.add(name);
        out.add(new SplitTarget(name, weight));
      }
    }
    return out;
  }

  /**
   * Checks each split against the services: its targets exist, have no split of their own (no
   * chains, no cycles) and are not the service itself, and the splitting service has no
   * backends, discovery or header rules (its targets' serve).
   *
   * @param nodes    the services' nodes, in the order of {@code services}
   * @param services the parsed services
   */
  static void check(List<Node> nodes, List<ServiceConfig> services) {
    Map<String, ServiceConfig> byName = new HashMap<>();
    List<String> plain = new ArrayList<>();
    for (ServiceConfig s : services) {
      if (s.name() != null) {
        byName.putIfAbsent(s.name(), s);
        if (s.split().isEmpty()) {
          plain.add(s.name());
        }
      }
    }
    for (int i = 0; i < services.size(); i++) {
      ServiceConfig s = services.get(i);
      Node n = nodes.get(i);
      if (s.split().isEmpty()) {
        continue;
      }
      String own = !s.backends().isEmpty() ? "backends" : s.discovery().enabled() ? "discovery"
          : !s.headers().isEmpty() ? "requestHeaders or responseHeaders" : null;
      if (own != null) {
        n.problemAt(n.child("split"), "is given with " + own + "; expected a split service without backends, "
            + "discovery or header rules (each request is served by a target service, with its settings)");
      }
      for (int j = 0; j < s.split().size(); j++) {
        String target = s.split().get(j).service();
        ServiceConfig t = byName.get(target);
        String path = n.child("split") + "[" + j + "].service";
        if (target.equals(s.name())) {
          n.problemAt(path, Node.show(target) + " is invalid; expected another service (a split cannot name itself)");
        } else if (t == null) {
          n.problemAt(path, Node.show(target) + " is invalid; expected the name of a service with backends: "
              + String.join(", ", plain));
        } else if (!t.split().isEmpty()) {
          n.problemAt(path, Node.show(target) + " is invalid; expected a service without a split of its own "
              + "(splits do not chain)");
        }
      }
    }
  }
}
