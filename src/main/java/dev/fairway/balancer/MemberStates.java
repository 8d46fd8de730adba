package dev.fairway.balancer;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.function.Supplier;

/**
 * A strategy's own state per member, held in an array parallel to the member list so that a pick
 * reads it by index, and found by endpoint (identity) for completions.
 *
 * <p>Example: after {@code sync([W1, W2])} the states are {@code [s1, s2]}; a later
 * {@code sync([W2, W3])} gives {@code [s2, s3']}: W2 keeps its state, W3 gets a fresh one and
 * W1's is dropped.
 *
 * <p>The arrays are rebuilt only when another list object is passed (the slot table passes the
 * same immutable list until the members change), so a pick costs one identity comparison; a
 * rebuild returns a new array, which tells a strategy to rebuild what it derives from the states.
 */
final class MemberStates<S> {
  private final Supplier<S> factory;
  private List<Endpoint> members;
  private Object[] states = new Object[0];
  private Endpoint[] endpoints = new Endpoint[0];
  private IdentityHashMap<Endpoint, S> byEndpoint = new IdentityHashMap<>();

  MemberStates(Supplier<S> factory) {
    this.factory = factory;
  }

  /** The states parallel to {@code members}, rebuilt when it is not the list seen last time. */
  Object[] sync(List<Endpoint> members) {
    if (members != this.members) {
      IdentityHashMap<Endpoint, S> next = new IdentityHashMap<>(members.size() * 2);
      Object[] array = new Object[members.size()];
      for (int i = 0; i < array.length; i++) {
        Endpoint e = members.get(i);
        S s = next.get(e);
        if (s == null) {
          s = byEndpoint.get(e);
          if (s == null) {
            s = factory.get();
          }
          next.put(e, s);
        }
        array[i] = s;
      }
      this.members = members;
      this.states = array;
      this.endpoints = members.toArray(new Endpoint[0]);
      this.byEndpoint = next;
    }
    return states;
  }

  /** The members as an array, as of the last {@link #sync}. */
  Endpoint[] endpoints() {
    return endpoints;
  }

  /** The state of a current member, or {@code null} for an endpoint that is not one. */
  S get(Endpoint endpoint) {
    return byEndpoint.get(endpoint);
  }

  /** Every current member's state (each once). */
  Iterable<S> all() {
    return byEndpoint.values();
  }
}
