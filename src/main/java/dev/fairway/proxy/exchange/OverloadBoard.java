package dev.fairway.proxy.exchange;

import dev.fairway.metrics.ThrottleReadings;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every event loop's {@link ServiceGuard}s, per service, for the meters and the dashboard: what
 * the throttles counted, summed over the event loops.
 *
 * <p>Example: two event loops whose guards of {@code api} counted 60 requests and 20 accepts, and
 * 40 and 20, give {@code requests("api")} 100, {@code accepts("api")} 40, and with {@code k} 2
 * {@code rejectProbability} (100 - 80) / 101 = 0.198.
 */
public final class OverloadBoard implements ThrottleReadings {
  private final Map<String, List<ServiceGuard>> guards = new ConcurrentHashMap<>();

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
    long n = 0;
    for (ServiceGuard g : guards.getOrDefault(service, List.of())) {
      n += g.requests();
    }
    return n;
  }

  /** Accepts the throttles of {@code service} counted in their windows. */
  @Override
  public long accepts(String service) {
    long n = 0;
    for (ServiceGuard g : guards.getOrDefault(service, List.of())) {
      n += g.accepts();
    }
    return n;
  }

  /** The book's rejection probability over all event loops' counts; 0 without throttling. */
  @Override
  public double rejectProbability(String service) {
    List<ServiceGuard> list = guards.getOrDefault(service, List.of());
    if (list.isEmpty() || !list.get(0).policy.throttle().enabled()) {
      return 0;
    }
    double k = list.get(0).policy.throttle().k();
    long r = requests(service);
    return Math.max(0, (r - k * accepts(service)) / (r + 1));
  }
}
