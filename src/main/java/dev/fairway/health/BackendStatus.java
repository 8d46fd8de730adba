package dev.fairway.health;

import java.util.Optional;

/**
 * Everything that decides whether one backend takes new requests: active health, lame duck,
 * passive ejection and draining, reduced to one {@link BackendState} by precedence
 * {@code draining > lame-duck > ejected > unhealthy > healthy}.
 *
 * <p>Example (thresholds 2/3, known at start-up): {@link #enterLameDuck()} gives
 * {@code healthy -> lame-duck: lame duck requested by API}; health checks keep running
 * underneath; {@link #leaveLameDuck()} gives
 * {@code lame-duck -> unhealthy: lame duck cleared by API, waiting for a passing check}, and the
 * next 2xx check gives {@code unhealthy -> healthy: passing check after lame duck cleared}.
 *
 * <p>Lame duck has two sources. Pushed ({@code POST .../lame-duck}) lasts until
 * {@code DELETE .../lame-duck}: a backend that asked from its SIGTERM handler usually still
 * answers its health checks with 200, and those must not undo its request. Pulled (a
 * {@code Lame-Duck: true} header on any response, health checks included) also ends when a 2xx
 * health check answers without the header. DELETE clears both and, when the backend was in lame
 * duck, holds it back until its next passing check. Both requests are idempotent: repeating one
 * yields no transition.
 *
 * <p>Every mutator returns the transition of the reported state, or empty when it stayed the
 * same (the change may still matter underneath, e.g. failing checks during lame duck). Not
 * thread-safe: the balancer verticle owns it.
 */
public final class BackendStatus {
  private final String id;
  private final HealthTracker health;
  private boolean pushedLameDuck;
  private boolean pulledLameDuck;
  private String lameDuckReason;
  private boolean ejected;
  private String ejectionReason;
  private boolean draining;
  private String drainReason;

  /**
   * @param id               the backend's id
   * @param thresholds       health-check thresholds of the backend
   * @param initiallyHealthy true for backends known at start-up (optimistic), false for ones
   *                         added while running (unhealthy until their first passing check)
   */
  public BackendStatus(String id, HealthThresholds thresholds, boolean initiallyHealthy) {
    this.id = id;
    this.health = new HealthTracker(thresholds, initiallyHealthy);
  }

  public String id() {
    return id;
  }

  /** The reported state, by precedence. */
  public BackendState state() {
    if (draining) {
      return BackendState.DRAINING;
    }
    if (lameDuck()) {
      return BackendState.LAME_DUCK;
    }
    if (ejected) {
      return BackendState.EJECTED;
    }
    return health.healthy() ? BackendState.HEALTHY : BackendState.UNHEALTHY;
  }

  /** Takes new requests: healthy and neither lame duck, ejected nor draining. */
  public boolean available() {
    return state() == BackendState.HEALTHY;
  }

  /** Why the backend is in its {@link #state()}, one line. */
  public String reason() {
    return switch (state()) {
      case DRAINING -> drainReason;
      case LAME_DUCK -> lameDuckReason;
      case EJECTED -> ejectionReason;
      case HEALTHY, UNHEALTHY -> health.reason();
    };
  }

  public boolean lameDuck() {
    return pushedLameDuck || pulledLameDuck;
  }

  public boolean ejected() {
    return ejected;
  }

  public boolean draining() {
    return draining;
  }

  /** The active-health view alone, whatever the other states. */
  public HealthTracker health() {
    return health;
  }

  /**
   * A health check got a response, judged by the default expectation.
   *
   * @param status         its HTTP status; 2xx passes, anything else fails with {@code HTTP <status>}
   * @param lameDuckHeader whether it carried {@code Lame-Duck: true}
   */
  public Optional<Transition> onCheckResponse(int status, boolean lameDuckHeader) {
    return onCheckResponse(status >= 200 && status < 300 ? null : "HTTP " + status, lameDuckHeader);
  }

  /**
   * A health check got a response, already judged against the service's expectation.
   *
   * @param unmet          why it failed the expectation, e.g. {@code status 503 not in 200-299}, or
   *                       {@code null} when it met it
   * @param lameDuckHeader whether it carried {@code Lame-Duck: true}
   */
  public Optional<Transition> onCheckResponse(String unmet, boolean lameDuckHeader) {
    BackendState before = state();
    boolean passed = unmet == null;
    Optional<Transition> h = passed ? health.onSuccess() : health.onFailure(unmet);
    String why = h.map(Transition::reason).orElse(null);
    if (lameDuckHeader) {
      if (!lameDuck()) {
        lameDuckReason = "Lame-Duck: true on a health check";
        why = lameDuckReason;
      }
      pulledLameDuck = true;
    } else if (passed && pulledLameDuck) {
      pulledLameDuck = false;
      if (!lameDuck()) {
        why = "health check passed without Lame-Duck header";
      }
    }
    return changed(before, why);
  }

  /**
   * A health check got no usable response.
   *
   * @param cause e.g. {@code connection refused} or {@code timeout after 1000 ms}
   */
  public Optional<Transition> onCheckFailure(String cause) {
    BackendState before = state();
    return changed(before, health.onFailure(cause).map(Transition::reason).orElse(null));
  }

  /** A proxied response carried {@code Lame-Duck: true} (pull). */
  public Optional<Transition> onLameDuckHeader() {
    BackendState before = state();
    if (!lameDuck()) {
      lameDuckReason = "Lame-Duck: true on a response";
    }
    pulledLameDuck = true;
    return changed(before, lameDuckReason);
  }

  /** {@code POST /api/backends/{id}/lame-duck} (push). */
  public Optional<Transition> enterLameDuck() {
    BackendState before = state();
    if (!lameDuck()) {
      lameDuckReason = "lame duck requested by API";
    }
    pushedLameDuck = true;
    return changed(before, lameDuckReason);
  }

  /**
   * {@code DELETE /api/backends/{id}/lame-duck}: clears lame duck from both sources; the backend
   * serves again after its next passing health check.
   */
  public Optional<Transition> leaveLameDuck() {
    if (!lameDuck()) {
      return Optional.empty();
    }
    BackendState before = state();
    pushedLameDuck = false;
    pulledLameDuck = false;
    health.awaitPassingCheck("lame duck cleared");
    return changed(before, "lame duck cleared by API, waiting for a passing check");
  }

  /** Passive ejection began (see {@link OutlierDetector}). */
  public Optional<Transition> eject(String reason) {
    BackendState before = state();
    ejected = true;
    ejectionReason = reason;
    return changed(before, reason);
  }

  /** Passive ejection ended; the backend serves again after its next passing health check. */
  public Optional<Transition> endEjection(String reason) {
    if (!ejected) {
      return Optional.empty();
    }
    BackendState before = state();
    ejected = false;
    health.awaitPassingCheck("ejection ended");
    return changed(before, reason + ", waiting for a passing check");
  }

  /** The backend is being removed: it takes no new requests, ever. */
  public Optional<Transition> drain(String reason) {
    BackendState before = state();
    if (!draining) {
      drainReason = reason;
    }
    draining = true;
    return changed(before, reason);
  }

  private Optional<Transition> changed(BackendState before, String why) {
    BackendState after = state();
    if (after == before) {
      return Optional.empty();
    }
    return Optional.of(new Transition(before, after, why != null ? why : reason()));
  }

  @Override
  public String toString() {
    return id + " " + state().jsonName() + " (" + reason() + ")";
  }
}
