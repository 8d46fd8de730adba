package dev.fairway.config;

/**
 * This process's place among the proxies that share the backends (deterministic subsetting).
 *
 * <p>Example: {@code {"clientId": 2, "clientCount": 3}} is the third of three proxies.
 *
 * @param clientId    0-based id of this proxy process
 * @param clientCount number of proxy processes
 * @param algorithm   how subsets are chosen
 */
public record SubsettingSettings(int clientId, int clientCount, SubsetAlgorithm algorithm) {
  /** Settings with the book's algorithm. */
  public SubsettingSettings(int clientId, int clientCount) {
    this(clientId, clientCount, SubsetAlgorithm.BOOK);
  }
}
