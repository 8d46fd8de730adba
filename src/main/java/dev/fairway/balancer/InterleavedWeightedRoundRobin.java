package dev.fairway.balancer;

import java.util.Arrays;
import java.util.List;

/**
 * Interleaved weighted round robin (seed 004, poolifier's experimental strategy): rounds over the
 * distinct weights in ascending order; a round visits, in list order, the members whose weight is
 * at least the round's weight.
 *
 * <p>Example: weights W1=1, W2=2, W3=3 make the rounds 1, 2 and 3, visiting {@code W1 W2 W3},
 * then {@code W2 W3}, then {@code W3}: the picks are {@code W1 W2 W3 W2 W3 W3}, repeating.
 * Weights W1=1, W2=4 give {@code W1 W2 W2 W2 W2}: round 4 is visited three times (4 − 1).
 *
 * <p>Weights are first turned into whole quanta, {@code round(weight / smallest weight)} clamped
 * to {@code [1, 100]}, so that the shares stay proportional: the round of quantum {@code q} is
 * visited {@code q − q'} times, {@code q'} being the previous round's quantum. This is coarse for
 * close weights (1 and 1.4 share alike) and, unlike {@link WeightedRoundRobin}, bursts the
 * heaviest member at the end of a cycle. A weight that is not a finite positive number stands for
 * the mean of the usable ones; with fewer than two distinct quanta the strategy is round robin.
 *
 * <p>Members that cannot {@link Endpoint#canTake() take} a request are passed over; rounds whose
 * weight no takeable member reaches are skipped. A change of any weight recomputes the rounds and
 * restarts the cycle at the first round, at the same place in the list.
 */
public final class InterleavedWeightedRoundRobin implements Strategy {
  /** Largest quantum: weights more than 100 times the smallest count as 100 times. */
  public static final int MAX_QUANTUM = 100;

  private List<Endpoint> members;
  private double[] weights = new double[0];
  private int[] quanta = new int[0];
  /** Distinct quanta, ascending; rounds[0] is 1. */
  private int[] rounds = {1};
  private int round;
  private int passesLeft = 1;
  private int idx;

  @Override
  public Endpoint pick(List<Endpoint> members, long nowNanos) {
    int n = members.size();
    boolean rebuild = members != this.members;
    int maxTakeable = 0;
    for (int i = 0; i < n; i++) {
      Endpoint e = members.get(i);
      if (!rebuild && Double.doubleToRawLongBits(e.weight()) != Double.doubleToRawLongBits(weights[i])) {
        rebuild = true;
      }
      if (!rebuild && e.canTake() && quanta[i] > maxTakeable) {
        maxTakeable = quanta[i];
      }
    }
    if (rebuild) {
      rebuild(members);
      for (int i = 0; i < n; i++) {
        if (members.get(i).canTake() && quanta[i] > maxTakeable) {
          maxTakeable = quanta[i];
        }
      }
    }
    if (maxTakeable == 0) {
      return null;
    }
    // Every takeable member is visited in round 0, so this ends within two passes of the list.
    while (true) {
      if (idx >= n) {
        idx = 0;
        if (--passesLeft == 0 || rounds[round] > maxTakeable) {
          boolean onward = passesLeft == 0 && round + 1 < rounds.length && rounds[round + 1] <= maxTakeable;
          round = onward ? round + 1 : 0;
          passesLeft = rounds[round] - (round == 0 ? 0 : rounds[round - 1]);
        }
      }
      int i = idx++;
      if (quanta[i] >= rounds[round] && members.get(i).canTake()) {
        return members.get(i);
      }
    }
  }

  @Override
  public void reset(List<Endpoint> members) {
    this.members = null;
  }

  private void rebuild(List<Endpoint> members) {
    int n = members.size();
    this.members = members;
    weights = new double[n];
    quanta = new int[n];
    double min = Double.POSITIVE_INFINITY;
    double sum = 0;
    int usable = 0;
    for (int i = 0; i < n; i++) {
      double w = members.get(i).weight();
      weights[i] = w;
      if (w > 0 && w < Double.POSITIVE_INFINITY) {
        min = Math.min(min, w);
        sum += w;
        usable++;
      }
    }
    double mean = usable == 0 ? 1.0 : sum / usable;
    if (usable == 0) {
      min = 1.0;
    }
    for (int i = 0; i < n; i++) {
      double w = weights[i] > 0 && weights[i] < Double.POSITIVE_INFINITY ? weights[i] : mean;
      quanta[i] = (int) Math.max(1, Math.min(MAX_QUANTUM, Math.round(w / min)));
    }
    rounds = Arrays.stream(quanta).distinct().sorted().toArray();
    if (rounds.length == 0 || rounds[0] != 1) {
      int[] withOne = new int[rounds.length + 1];
      withOne[0] = 1;
      System.arraycopy(rounds, 0, withOne, 1, rounds.length);
      rounds = withOne;
    }
    round = 0;
    passesLeft = 1;
    if (idx > n) {
      idx = 0;
    }
  }
}
