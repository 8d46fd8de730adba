package dev.fairway.balancer;

import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

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
 * weight no takeable member reaches are skipped. A change of a member's weight recomputes the
 * rounds and restarts the cycle at the first round, at the same place in the list.
 *
 * <p>Cost: each round keeps the indexes of its members, so a pick walks only members of the
 * current round and costs {@code O(1)} amortized while most can take; memory is {@code n} ints per
 * distinct quantum (at most 100). Weights are compared with the scheduled ones only when the
 * members' {@link WeightEpoch weight epoch} moved; a change of another service's
 * weight leaves the cycle alone. A pass that walks a whole round finding no member that can take
 * ends the round (back to the first round); a whole first round without one returns {@code null}
 * and leaves the cycle where it was.
 */
public final class InterleavedWeightedRoundRobin implements Strategy {
  /** Largest quantum: weights more than 100 times the smallest count as 100 times. */
  public static final int MAX_QUANTUM = 100;

  private List<Endpoint> members;
  private Endpoint[] arr = new Endpoint[0];
  /** The members' weight epoch, {@code null} for no members, and its count when last compared. */
  private WeightEpoch weightEpoch;
  private long epoch;
  private double[] weights = new double[0];
  /** Distinct quanta, ascending; rounds[0] is 1. */
  private int[] rounds = {1};
  /** Per round, the indexes of the members whose quantum reaches it, in list order. */
  private int[][] roundMembers = {new int[0]};
  private int round;
  private int passesLeft = 1;
  /** Position in the current round's members of the next one to visit. */
  private int pos;
  /** Index in the list after the member visited last: where a restarted cycle goes on. */
  private int place;

  @Override
  public Endpoint pick(List<Endpoint> members, long nowNanos) {
    if (members != this.members) {
      rebuild(members);
    } else if (weightEpoch != null && weightEpoch.get() != epoch && weightsChanged()) {
      rebuild(members);
    }
    if (arr.length == 0) {
      return null;
    }
    int savedRound = round;
    int savedPasses = passesLeft;
    int savedPos = pos;
    int savedPlace = place;
    // A pass that started in this pick and reached its end found nobody that can take.
    boolean wholePass = pos == 0;
    while (true) {
      int[] visit = roundMembers[round];
      if (pos >= visit.length) {
        if (wholePass && round == 0) {
          round = savedRound;
          passesLeft = savedPasses;
          pos = savedPos;
          place = savedPlace;
          return null;
        }
        if (wholePass) {
          round = 0;
          passesLeft = 1;
        } else if (--passesLeft == 0) {
          round = round + 1 < rounds.length ? round + 1 : 0;
          passesLeft = rounds[round] - (round == 0 ? 0 : rounds[round - 1]);
        }
        pos = 0;
        wholePass = true;
        continue;
      }
      int i = visit[pos++];
      place = i + 1;
      if (arr[i].canTake()) {
        return arr[i];
      }
    }
  }

  @Override
  public void reset(List<Endpoint> members) {
    this.members = null;
  }

  /** Whether a member's weight differs from the scheduled one (bit for bit). */
  private boolean weightsChanged() {
    epoch = weightEpoch.get();
    for (int i = 0; i < arr.length; i++) {
      if (Double.doubleToRawLongBits(arr[i].weight()) != Double.doubleToRawLongBits(weights[i])) {
        return true;
      }
    }
    return false;
  }

  private void rebuild(List<Endpoint> members) {
    this.members = members;
    arr = members.toArray(new Endpoint[0]);
    weightEpoch = WeightEpoch.common(arr);
    epoch = weightEpoch == null ? 0 : weightEpoch.get();
    int n = arr.length;
    weights = new double[n];
    int[] quanta = new int[n];
    double min = Double.POSITIVE_INFINITY;
    double sum = 0;
    int usable = 0;
    for (int i = 0; i < n; i++) {
      double w = arr[i].weight();
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
    roundMembers = new int[rounds.length][];
    for (int r = 0; r < rounds.length; r++) {
      int q = rounds[r];
      roundMembers[r] = IntStream.range(0, n).filter(i -> quanta[i] >= q).toArray();
    }
    round = 0;
    passesLeft = 1;
    if (place > n) {
      place = 0;
    }
    pos = place;
  }
}
