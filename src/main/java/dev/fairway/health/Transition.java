package dev.fairway.health;

import java.util.Objects;

/**
 * A change of a backend's reported state, with the reason, for logs, events and the dashboard.
 *
 * <p>Example: three failed checks make
 * {@code healthy -> unhealthy: 3 consecutive failed checks: connection refused}, which is also
 * its {@link #toString()}.
 *
 * @param from   state before
 * @param to     state after, never equal to {@code from}
 * @param reason what caused it, one line
 */
public record Transition(BackendState from, BackendState to, String reason) {
  public Transition {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(reason, "reason");
    if (from == to) {
      throw new IllegalArgumentException("not a transition: " + from);
    }
  }

  @Override
  public String toString() {
    return from.jsonName() + " -> " + to.jsonName() + ": " + reason;
  }
}
