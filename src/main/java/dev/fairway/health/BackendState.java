package dev.fairway.health;

import java.util.Arrays;
import java.util.Optional;

/**
 * The one state the admin API reports for a backend, by precedence
 * {@code draining > lame-duck > ejected > unhealthy > healthy}.
 *
 * <p>Example: a backend that is failing its health checks and then asks for lame duck reports
 * {@code LAME_DUCK}, whose {@link #jsonName()} is {@code "lame-duck"}; once its lame duck is
 * cleared it reports {@code unhealthy} until a check passes.
 */
public enum BackendState {
  HEALTHY("healthy"),
  UNHEALTHY("unhealthy"),
  LAME_DUCK("lame-duck"),
  EJECTED("ejected"),
  DRAINING("draining");

  private final String jsonName;

  BackendState(String jsonName) {
    this.jsonName = jsonName;
  }

  /** The name used in the admin API's {@code state} field. */
  public String jsonName() {
    return jsonName;
  }

  /** The state with this JSON name, if any. */
  public static Optional<BackendState> fromJson(String name) {
    return Arrays.stream(values()).filter(s -> s.jsonName.equals(name)).findFirst();
  }
}
