package dev.fairway.route;

import dev.fairway.config.SplitTarget;
import java.util.List;

/**
 * Which target of a split takes the next request: nginx's smooth weighted round robin, so the
 * shares are exact over every run of (sum of weights) picks and the small arm's picks are spread
 * out, not bunched. Deterministic, no randomness; not thread-safe (one per lane).
 *
 * <p>Example: weights v1=5, v2=1, v3=1 give {@code v1 v1 v2 v1 v3 v1 v1}, then the same again;
 * v1=95, v2=5 give v2 at picks 11, 31, 51, 71 and 91 of every hundred.
 */
public final class WeightedSplit {
  private final List<SplitTarget> targets;
  private final long[] current;
  private final long total;

  /** @param targets at least one, each with a positive weight */
  public WeightedSplit(List<SplitTarget> targets) {
    this.targets = targets;
    this.current = new long[targets.size()];
    long sum = 0;
    for (SplitTarget t : targets) {
      sum += t.weight();
    }
    this.total = sum;
  }

  /** The targets it picks from, as given. */
  public List<SplitTarget> targets() {
    return targets;
  }

  /**
   * The next pick: every target's current weight grows by its weight, the largest (the first of
   * equals) is picked and loses the sum of the weights.
   */
  public String next() {
    int best = 0;
    for (int i = 0; i < current.length; i++) {
      current[i] += targets.get(i).weight();
      if (current[i] > current[best]) {
        best = i;
      }
    }
    current[best] -= total;
    return targets.get(best).service();
  }
}
