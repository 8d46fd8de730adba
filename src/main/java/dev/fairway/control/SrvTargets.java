package dev.fairway.control;

import dev.fairway.discovery.SrvAnswer;
import io.netty.util.NetUtil;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SRV targets that are host names, replaced by their A records from the discovery's own name
 * server: a server such as Consul's DNS knows names the proxy's system resolver does not.
 *
 * <p>Example: {@code 10 5 8080 node1.consul.} with {@code node1.consul. 30 IN A 10.0.0.7} becomes
 * {@code SrvAnswer[10, 5, 8080, 10.0.0.7, min(ttls)]}; a target with two addresses becomes two
 * answers of the same weight; a target that does not resolve stays a name (the proxy's resolver
 * then tries it); an IP target stays as it is.
 */
final class SrvTargets {
  private final ARecordQuery addresses;

  SrvTargets(ARecordQuery addresses) {
    this.addresses = addresses;
  }

  /** {@code answers} with every name target looked up. */
  Future<List<SrvAnswer>> resolve(List<SrvAnswer> answers) {
    Map<String, Future<List<ARecordQuery.Address>>> lookups = new LinkedHashMap<>();
    for (SrvAnswer r : answers) {
      if (!NetUtil.isValidIpV4Address(r.target()) && !NetUtil.isValidIpV6Address(r.target())) {
        lookups.computeIfAbsent(r.target(), addresses::resolve);
      }
    }
    if (lookups.isEmpty()) {
      return Future.succeededFuture(answers);
    }
    return Future.join(new ArrayList<>(lookups.values())).transform(ignored -> {
      List<SrvAnswer> out = new ArrayList<>();
      for (SrvAnswer r : answers) {
        Future<List<ARecordQuery.Address>> f = lookups.get(r.target());
        List<ARecordQuery.Address> ips = f == null || f.failed() ? List.of() : f.result();
        if (ips.isEmpty()) {
          out.add(r);
        }
        for (ARecordQuery.Address a : ips) {
          out.add(new SrvAnswer(r.priority(), r.weight(), r.port(), a.ip(), Math.min(r.ttlSeconds(), a.ttlSeconds())));
        }
      }
      return Future.succeededFuture(out);
    });
  }
}
