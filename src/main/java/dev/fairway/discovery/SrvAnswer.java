package dev.fairway.discovery;

/**
 * One SRV record of an answer, as the DNS client decoded it.
 *
 * <p>Example: {@code _api._tcp.example. 30 IN SRV 10 5 8080 web1.example.} is
 * {@code SrvAnswer[priority=10, weight=5, port=8080, target=web1.example., ttlSeconds=30]}.
 *
 * @param priority   lower is preferred; only the lowest present is used
 * @param weight     relative share among records of the same priority
 * @param port       the backend's port
 * @param target     the backend's host name (a trailing dot is dropped)
 * @param ttlSeconds how long the record may be cached
 */
public record SrvAnswer(int priority, int weight, int port, String target, long ttlSeconds) {
}
