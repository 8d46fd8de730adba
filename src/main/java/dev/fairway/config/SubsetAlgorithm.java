package dev.fairway.config;

import java.util.Arrays;
import java.util.Optional;

/**
 * How a proxy's subset of a service's backends is chosen ({@code subsetting.algorithm}).
 *
 * <p>Example: {@code "book"} (the default, except in cluster mode) is the SRE book's deterministic subsetting (seed 001):
 * adding one backend to 300 reshuffles about three quarters of 300 proxies' subsets of 10;
 * {@code "rendezvous"} keeps the same balance (every backend within one of the mean) and moves
 * under 2 % of them. Cluster mode defaults to {@code "rendezvous"}: there members come and go too.
 */
public enum SubsetAlgorithm {
  /** {@code dev.fairway.balancer.Subsetter}: rounds of shuffled slices. */
  BOOK("book"),
  /** {@code dev.fairway.balancer.RendezvousSubsetter}: rendezvous hashing with capped loads. */
  RENDEZVOUS("rendezvous");

  private final String configName;

  SubsetAlgorithm(String configName) {
    this.configName = configName;
  }

  public String configName() {
    return configName;
  }

  /** The algorithm a config value names, if any. */
  public static Optional<SubsetAlgorithm> fromConfig(String name) {
    return Arrays.stream(values()).filter(a -> a.configName.equals(name)).findFirst();
  }
}
