package dev.fairway.health;

import java.util.Optional;

/**
 * Active health of one backend from its health-check results: consecutive passing and failed
 * checks against {@link HealthThresholds}.
 *
 * <p>Example: with thresholds (2, 3), a backend known at start-up ({@code initiallyHealthy})
 * stays healthy through two failures, the third gives
 * {@code healthy -> unhealthy: 3 consecutive failed checks: connection refused}, one pass changes
 * nothing and the second gives {@code unhealthy -> healthy: 2 consecutive passing checks}.
 *
 * <p>A backend that is not {@code initiallyHealthy} (one added while running) is unhealthy until
 * its first passing check; that single pass is enough. The same holds after
 * {@link #awaitPassingCheck(String)}, which the backend status uses when a lame duck is cleared
 * or an ejection ends. Not thread-safe.
 */
public final class HealthTracker {
  private final HealthThresholds thresholds;
  private boolean healthy;
  private String awaiting;
  private int successes;
  private int failures;
  private String reason;

  /**
   * @param thresholds       when to flip
   * @param initiallyHealthy true at start-up (optimistic); false for a backend added later
   */
  public HealthTracker(HealthThresholds thresholds, boolean initiallyHealthy) {
    this.thresholds = thresholds;
    this.healthy = initiallyHealthy;
    this.awaiting = initiallyHealthy ? null : "first passing check";
    this.reason = initiallyHealthy ? "assumed healthy at start-up" : "new backend, not checked yet";
  }

  public boolean healthy() {
    return healthy;
  }

  /** Why the backend has its current health, one line. */
  public String reason() {
    return reason;
  }

  public int consecutiveSuccesses() {
    return successes;
  }

  public int consecutiveFailures() {
    return failures;
  }

  /** A check passed (2xx within its timeout). */
  public Optional<Transition> onSuccess() {
    failures = 0;
    successes = successes == Integer.MAX_VALUE ? successes : successes + 1;
    if (healthy) {
      return Optional.empty();
    }
    if (awaiting != null) {
      return flip(true, awaiting);
    }
    if (successes >= thresholds.healthyThreshold()) {
      return flip(true, count(successes, "passing check"));
    }
    return Optional.empty();
  }

  /**
   * A check failed.
   *
   * @param cause what went wrong, e.g. {@code connection refused}, {@code HTTP 503},
   *              {@code timeout after 1000 ms}
   */
  public Optional<Transition> onFailure(String cause) {
    successes = 0;
    failures = failures == Integer.MAX_VALUE ? failures : failures + 1;
    if (healthy && failures >= thresholds.unhealthyThreshold()) {
      return flip(false, count(failures, "failed check") + ": " + cause);
    }
    return Optional.empty();
  }

  /**
   * Makes the backend unhealthy until its next passing check, whatever the thresholds.
   *
   * @param why what the check will confirm, e.g. {@code lame duck cleared}
   */
  public Optional<Transition> awaitPassingCheck(String why) {
    successes = 0;
    Optional<Transition> t = healthy ? flip(false, why + ", waiting for a passing check") : Optional.empty();
    awaiting = "passing check after " + why;
    return t;
  }

  private Optional<Transition> flip(boolean nowHealthy, String why) {
    healthy = nowHealthy;
    awaiting = null;
    reason = why;
    return Optional.of(nowHealthy
        ? new Transition(BackendState.UNHEALTHY, BackendState.HEALTHY, why)
        : new Transition(BackendState.HEALTHY, BackendState.UNHEALTHY, why));
  }

  private static String count(int n, String what) {
    return n == 1 ? "1 " + what : n + " consecutive " + what + "s";
  }
}
