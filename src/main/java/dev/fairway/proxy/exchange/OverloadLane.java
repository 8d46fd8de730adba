package dev.fairway.proxy.exchange;

import dev.fairway.config.OverloadSettings;
import dev.fairway.route.Route;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One event loop's part of overload control: which request fields carry criticality and
 * deadlines, and a {@link ServiceGuard} per service, made on first use and made anew when the
 * service's overload policy changes (a reload). Touched only by its event loop.
 *
 * <p>Example: the defaults read {@code x-criticality} and {@code x-request-timeout-ms}; the first
 * request for service {@code api} creates api's guard here and shows it on the {@link OverloadBoard}.
 */
public final class OverloadLane {
  /** The field naming the attempt on every forwarded request: 1, then 2 for the first retry... */
  public static final String ATTEMPT_FIELD = "x-fairway-attempt";

  final String criticalityField;
  final String deadlineField;
  private final int lanes;
  private final OverloadBoard board;
  private final Map<String, ServiceGuard> guards = new HashMap<>();
  private final SplittableRandom random;

  /**
   * @param lanes how many event loops there are (each gets a share of {@code minRetriesPerSecond})
   * @param seed  seeds the throttle's coin
   */
  public OverloadLane(OverloadSettings settings, int lanes, OverloadBoard board, long seed) {
    this.criticalityField = settings.criticalityHeader().toLowerCase(Locale.ROOT);
    this.deadlineField = settings.deadlineHeader().toLowerCase(Locale.ROOT);
    this.lanes = lanes;
    this.board = board;
    this.random = new SplittableRandom(seed);
  }

  /**
   * The guard of the route's service under its current policy. A reload that leaves the policy
   * equal keeps the guard (and its counts), which then holds the new instance, so the next
   * requests compare by identity only.
   */
  ServiceGuard guard(Route route) {
    ServiceGuard g = guards.get(route.service());
    if (g != null && g.policy != route.overload() && g.policy.equals(route.overload())) {
      g.policy = route.overload();
    }
    if (g == null || g.policy != route.overload()) {
      ServiceGuard next = new ServiceGuard(route.overload(), lanes, board.serviceTime(route.service()));
      guards.put(route.service(), next);
      board.replace(route.service(), g, next);
      g = next;
    }
    return g;
  }

  /** A coin for the throttle, in [0, 1). */
  double coin() {
    return random.nextDouble();
  }
}
