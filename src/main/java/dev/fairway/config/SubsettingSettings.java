package dev.fairway.config;

/**
 * This process's place among the proxies that share the backends (deterministic subsetting).
 *
 * <p>Example: {@code {"clientId": 2, "clientCount": 3}} is the third of three proxies, choosing
 * subsets with the book's algorithm; in cluster mode the same file chooses them with
 * {@code rendezvous} (its id and count then come from the cluster), unless it names an
 * {@code algorithm}.
 *
 * @param clientId      0-based id of this proxy process
 * @param clientCount   number of proxy processes
 * @param algorithm     how subsets are chosen
 * @param algorithmSet  whether the file named the algorithm (rather than taking the default)
 */
public record SubsettingSettings(int clientId, int clientCount, SubsetAlgorithm algorithm, boolean algorithmSet) {
  /** Settings with an algorithm chosen explicitly. */
  public SubsettingSettings(int clientId, int clientCount, SubsetAlgorithm algorithm) {
    this(clientId, clientCount, algorithm, true);
  }

  /** Settings with the default algorithm (the book's). */
  public SubsettingSettings(int clientId, int clientCount) {
    this(clientId, clientCount, SubsetAlgorithm.BOOK, false);
  }

  /**
   * The algorithm of cluster mode: the one the file names, else {@code rendezvous}, which moves
   * far fewer client-backend pairs when members or backends come and go.
   */
  public SubsetAlgorithm clusterAlgorithm() {
    return algorithmSet ? algorithm : SubsetAlgorithm.RENDEZVOUS;
  }
}
