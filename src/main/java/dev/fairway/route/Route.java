package dev.fairway.route;

import dev.fairway.config.HeaderRules;
import dev.fairway.config.MatchRule;
import dev.fairway.config.ServiceOverload;
import dev.fairway.config.SlotSettings;
import dev.fairway.config.SplitTarget;
import dev.fairway.config.Timeouts;
import dev.fairway.config.UpstreamTls;
import dev.fairway.grpc.GrpcErrorCodes;
import dev.fairway.overload.Criticality;
import dev.fairway.slots.ServiceSlots;
import java.util.List;

/**
 * Where the proxy sends requests that match a service, and how long it waits.
 *
 * <p>Example: {@code Route[service=api, match=MatchRule[host=*, pathPrefix=/api], ...]} takes
 * {@code GET /api/users}; its {@code slots} handle is where the proxy asks for a backend, and a
 * sheddable request waits {@code waitTimeoutMs(SHEDDABLE)} for a slot.
 *
 * @param service      service name
 * @param match        which requests it takes
 * @param timeouts     upstream timeouts
 * @param slotSettings capacities and the waits for a free slot, per criticality
 * @param slots        the service's live part of the slot table
 * @param tls          how to speak TLS to the service's {@code https://} backends
 * @param grpcErrors   which {@code grpc-status} codes in a backend's answer count as its failure
 * @param overload     default criticality, retries and adaptive throttling
 * @param headers      header changes to its requests and responses
 * @param split        when not empty, the services that serve its requests by weight ({@link SplitPicks})
 */
public record Route(String service, MatchRule match, Timeouts timeouts, SlotSettings slotSettings, ServiceSlots slots,
                    UpstreamTls tls, GrpcErrorCodes grpcErrors, ServiceOverload overload, HeaderRules headers,
                    List<SplitTarget> split) {
  /** The longest wait for a free slot of a request of class {@code c}. */
  public long waitTimeoutMs(Criticality c) {
    return slotSettings.waitTimeoutMs(c);
  }
}
