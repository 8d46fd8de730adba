package dev.fairway.balancer;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What one service's strategy knows of each backend (recent errors, a latency estimate, a
 * predicted end), shared by the strategy instances of every event loop and by the one that serves
 * queued requests: each lane picks with a cursor or a random draw of its own, but from the signals
 * of the whole process.
 *
 * <p>Example: least-loaded over b1, b2 on four event loops; b1 fails once on each of them. With
 * signals per lane each loop would count one error for b1; with these, every loop counts four and
 * picks as a single loop that saw the four failures would.
 *
 * <p>Thread-safe: a state is created once per backend ({@link #of}); the state classes guard
 * their own fields (volatile reads, synchronized or compare-and-set writes).
 *
 * @param <S> the strategy's state of one backend
 */
public final class Signals<S> {
  private final Supplier<S> factory;
  private final ConcurrentHashMap<Endpoint, S> byEndpoint = new ConcurrentHashMap<>();

  public Signals(Supplier<S> factory) {
    this.factory = factory;
  }

  /** The state of {@code endpoint}, created on first use. */
  public S of(Endpoint endpoint) {
    S s = byEndpoint.get(endpoint);
    return s != null ? s : byEndpoint.computeIfAbsent(endpoint, k -> factory.get());
  }

  /** Forgets every backend but {@code keep} (the service's members now), so churn leaves nothing behind. */
  void retain(Collection<Endpoint> keep) {
    byEndpoint.keySet().retainAll(keep instanceof Set<?> ? keep : Set.copyOf(keep));
  }
}
