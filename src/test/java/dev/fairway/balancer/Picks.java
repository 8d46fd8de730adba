package dev.fairway.balancer;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/** Test helpers that drive a strategy the way the slot table does. */
final class Picks {
  static final long MS = 1_000_000L;
  static final long S = 1_000_000_000L;

  private Picks() {
  }

  /** Endpoints with these ids, capacity 100 each, in that order, sharing one weight epoch. */
  static List<Endpoint> members(String... ids) {
    WeightEpoch epoch = new WeightEpoch();
    List<Endpoint> list = new ArrayList<>();
    for (String id : ids) {
      Endpoint e = new Endpoint(id, "127.0.0.1", 9000 + list.size(), epoch);
      e.setCapacity(100);
      list.add(e);
    }
    return List.copyOf(list);
  }

  /** Sets the weights of the members, in order. */
  static void weights(List<Endpoint> members, double... weights) {
    for (int i = 0; i < weights.length; i++) {
      members.get(i).setWeight(weights[i]);
    }
  }

  /** {@code count} picks at {@code nowNanos}, each taking a slot; "-" when none is picked. */
  static String picks(Strategy strategy, List<Endpoint> members, int count, long nowNanos) {
    StringJoiner out = new StringJoiner(" ");
    for (int i = 0; i < count; i++) {
      Endpoint e = strategy.pick(members, nowNanos);
      if (e == null) {
        out.add("-");
      } else {
        e.setActive(e.active() + 1);
        out.add(e.id());
      }
    }
    return out.toString();
  }

  static String picks(Strategy strategy, List<Endpoint> members, int count) {
    return picks(strategy, members, count, 0);
  }

  /** Ends one request on {@code e} as the slot table's release does. */
  static void complete(Strategy strategy, Endpoint e, long latencyNanos, boolean failed, long nowNanos) {
    e.setActive(e.active() - 1);
    strategy.onComplete(e, latencyNanos, failed, nowNanos);
    strategy.onSlotFreed(e);
  }

  /** The active counts, space-separated. */
  static String actives(List<Endpoint> members) {
    StringJoiner out = new StringJoiner(" ");
    for (Endpoint e : members) {
      out.add(Integer.toString(e.active()));
    }
    return out.toString();
  }
}
