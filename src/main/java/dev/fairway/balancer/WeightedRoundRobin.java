package dev.fairway.balancer;

import java.util.List;

/**
 * Weighted round robin (seed 001) with the smooth, interleaving scheduler of nginx: requests are
 * spread in proportion to {@link Endpoint#weight()} (the capability score) without bursts.
 *
 * <p>Example: weights W1=3, W2=4 give {@code W2 W1 W2 W1 W2 W1 W2}, and weights W1=1, W2=2, W3=3
 * give {@code W3 W2 W1 W3 W2 W3} (never three of W3 in a row), both repeating.
 *
 * <p>Each pick adds every takeable member's weight to its running credit, takes the member with
 * the most credit (ties to the one listed first) and takes the sum of the weights added off the
 * winner's credit. Members that cannot {@link Endpoint#canTake() take} a request sit the pick out
 * and keep their credit. A weight that is not a finite positive number is not usable and stands
 * for the mean of the usable weights of the pick. With fewer than two distinct weights among the
 * takeable members the strategy is plain {@link RoundRobin round robin}; when weights differ again
 * the credits start from zero. Weights are read on every pick, so changes take effect at once.
 */
public final class WeightedRoundRobin implements Strategy {
  private List<Endpoint> members;
  private Endpoint[] arr = new Endpoint[0];
  private double[] credit = new double[0];
  private boolean weighted;
  private int next;

  @Override
  public Endpoint pick(List<Endpoint> members, long nowNanos) {
    int n = members.size();
    if (members != this.members) {
      this.members = members;
      arr = members.toArray(new Endpoint[0]);
      credit = new double[n];
      weighted = false;
    }
    int rrFirst = -1;
    int rrAfter = -1;
    int usable = 0;
    double sum = 0;
    double first = Double.NaN;
    boolean distinct = false;
    for (int i = 0; i < n; i++) {
      Endpoint e = arr[i];
      if (!e.canTake()) {
        continue;
      }
      if (rrFirst < 0) {
        rrFirst = i;
      }
      if (rrAfter < 0 && i >= next) {
        rrAfter = i;
      }
      double w = e.weight();
      if (w > 0 && w < Double.POSITIVE_INFINITY) {
        if (usable++ == 0) {
          first = w;
        } else if (w != first) {
          distinct = true;
        }
        sum += w;
      }
    }
    if (rrFirst < 0) {
      return null;
    }
    if (!distinct) {
      weighted = false;
      int pick = rrAfter >= 0 ? rrAfter : rrFirst;
      next = pick + 1;
      return arr[pick];
    }
    if (!weighted) {
      weighted = true;
      java.util.Arrays.fill(credit, 0.0);
    }
    double mean = sum / usable;
    double total = 0;
    int best = -1;
    for (int i = 0; i < n; i++) {
      Endpoint e = arr[i];
      if (!e.canTake()) {
        continue;
      }
      double w = e.weight();
      if (!(w > 0 && w < Double.POSITIVE_INFINITY)) {
        w = mean;
      }
      credit[i] += w;
      total += w;
      if (best < 0 || credit[i] > credit[best]) {
        best = i;
      }
    }
    credit[best] -= total;
    next = best + 1;
    return arr[best];
  }

  @Override
  public void reset(List<Endpoint> members) {
    this.members = null;
  }
}
