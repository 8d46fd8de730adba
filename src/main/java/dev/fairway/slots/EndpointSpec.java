package dev.fairway.slots;

/**
 * What the balancer wants a backend to be in the slot table.
 *
 * <p>Example: {@code new EndpointSpec("b1", "127.0.0.1", 9001, 3, 1.0, true)}: three slots, plain
 * weight, taking requests.
 *
 * @param id        backend id
 * @param host      host to connect to
 * @param port      port to connect to
 * @param capacity  on-proxy capacity
 * @param weight    capability score for weighted strategies
 * @param available healthy and not lame duck, ejected or draining
 */
public record EndpointSpec(String id, String host, int port, int capacity, double weight, boolean available) {
}
