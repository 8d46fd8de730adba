package dev.fairway.proxy.exchange;

import dev.fairway.metrics.ThrottleReadings;
import dev.fairway.overload.ServiceTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToLongFunction;

/**
 * Every event loop's {@link ServiceGuard}s, per service, for the meters and the dashboard: what
 * the throttles counted, summed over the event loops.
 *
 * <p>Example: two event loops whose guards of {@code api} counted 60 requests and 20 accepts, and
 * 40 and 20, give {@code requests("api")} 100 and {@code accepts("api")} 40; if their throttles
 * refuse with probabilities 0.3 and 0.1, {@code rejectProbability("api")} is 0.22.
 */
public final class OverloadBoard implements ThrottleReadings {
  private final Map<String, List<ServiceGuard>> guards = new ConcurrentHashMap<>();
  private final Map<String, ServiceTime> serviceTimes = new ConcurrentHashMap<>();

  /** The answer times of {@code service}'s backends, one estimate for every event loop. */
  ServiceTime serviceTime(String service) {
    return serviceTimes.computeIfAbsent(service, k -> new ServiceTime(0.25));
  }

  void replace(String service, ServiceGuard old, ServiceGuard next) {
    List<ServiceGuard> list = guards.computeIfAbsent(service, k -> new CopyOnWriteArrayList<>());
    if (old != null) {
      list.remove(old);
    }
    list.add(next);
  }

  /** Requests the throttles of {@code service} counted in their windows. */
  @Override
  public long requests(String service) {
    return sum(service, ServiceGuard::requests);
  }

  /** Accepts the throttles of {@code service} counted in their windows. */
  @Override
  public long accepts(String service) {
    return sum(service, ServiceGuard::accepts);
  }

  private long sum(String service, ToLongFunction<ServiceGuard> count) {
    long n = 0;
    for (ServiceGuard g : guards.getOrDefault(service, List.of())) {
      n += count.applyAsLong(g);
    }
    return n;
  }

  /**
   * The throttles' refusal probability, each event loop's weighted by its requests; 0 without
   * throttling. Each loop computes its own ({@link dev.fairway.overload.AdaptiveThrottle}).
   */
  @Override
  public double rejectProbability(String service) {
    double weighted = 0;
    long requests = 0;
    for (ServiceGuard g : guards.getOrDefault(service, List.of())) {
      weighted += g.probability() * g.requests();
      requests += g.requests();
    }
    return requests == 0 ? 0 : weighted / requests;
  }
}
