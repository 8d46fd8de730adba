package dev.fairway.table;

import dev.fairway.health.Transition;
import dev.fairway.route.BalancerSnapshot;

/**
 * What a {@link BackendTable} asks of its owner: timers, logs, metrics and publishing.
 *
 * <p>Example: {@code table.lameDuck("b1", false, now)} on a lame-duck backend calls
 * {@code transitioned("b1", lame-duck -> unhealthy: ...)}, then {@code published(snapshot)}, then
 * {@code checkNow("b1")}.
 */
public interface TableListener {
  /** The slot table was reshaped; proxies should route with {@code snapshot} from now on. */
  void published(BalancerSnapshot snapshot);

  /** A backend's reported state changed. */
  void transitioned(String id, Transition transition);

  /** Run a health check of {@code id} in {@code delayMs}. */
  void checkDue(String id, long delayMs);

  /** Run {@code id}'s scheduled health check now instead of at its time, if one is scheduled. */
  void checkNow(String id);

  /** {@code id} left the table; its health checks stop. */
  void removed(String id, String why);

  /** A line worth logging (backends added or removed by API, subset changes). */
  void note(String line);

  /**
   * A service's panic started ({@code on}) or ended (see {@link Panic}); {@code line} says so,
   * e.g. {@code service a: panic: 1 of 3 subset members healthy, below 50 %; spreading over all 9
   * backends of the service}.
   */
  default void panic(String service, boolean on, String line) {
    note(line);
  }
}
