package dev.fairway.config;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The balancing strategies a service can name in {@code strategy}.
 *
 * <p>Example: {@code StrategyName.fromConfig("slot-queue")} is {@code SLOT_QUEUE}; an unknown
 * name is empty and {@link #choices()} lists the valid ones for the error message.
 */
public enum StrategyName {
  ROUND_ROBIN("round-robin"),
  LEAST_LOADED("least-loaded"),
  WEIGHTED_ROUND_ROBIN("weighted-round-robin"),
  SLOT_QUEUE("slot-queue"),
  FAIR_SHARE("fair-share"),
  INTERLEAVED_WEIGHTED_ROUND_ROBIN("interleaved-weighted-round-robin"),
  P2C_PEAK_EWMA("p2c-peak-ewma");

  private final String configName;

  StrategyName(String configName) {
    this.configName = configName;
  }

  /** The name as written in the config file. */
  public String configName() {
    return configName;
  }

  /** The strategy with this config name, if any. */
  public static Optional<StrategyName> fromConfig(String name) {
    return Arrays.stream(values()).filter(s -> s.configName.equals(name)).findFirst();
  }

  /** All config names, comma-separated, for error messages. */
  public static String choices() {
    return Arrays.stream(values()).map(StrategyName::configName).collect(Collectors.joining(", "));
  }
}
