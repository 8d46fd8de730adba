package dev.fairway.route;

import dev.fairway.config.MatchRule;
import dev.fairway.config.Timeouts;
import dev.fairway.config.UpstreamTls;
import dev.fairway.grpc.GrpcErrorCodes;
import dev.fairway.slots.ServiceSlots;

/**
 * Where the proxy sends requests that match a service, and how long it waits.
 *
 * <p>Example: {@code Route[service=api, match=MatchRule[host=*, pathPrefix=/api], ...]} takes
 * {@code GET /api/users}; its {@code slots} handle is where the proxy asks for a backend.
 *
 * @param service       service name
 * @param match         which requests it takes
 * @param timeouts      upstream timeouts
 * @param waitTimeoutMs longest wait for a free slot
 * @param slots         the service's live part of the slot table
 * @param tls           how to speak TLS to the service's {@code https://} backends
 * @param grpcErrors    which {@code grpc-status} codes in a backend's answer count as its failure
 */
public record Route(String service, MatchRule match, Timeouts timeouts, long waitTimeoutMs, ServiceSlots slots,
                    UpstreamTls tls, GrpcErrorCodes grpcErrors) {
}
