package dev.fairway.balancer;

import java.util.List;

/**
 * A strategy instance's view of its members' shared {@link Signals}: the states in an array
 * parallel to the member list, so that a pick reads them by index.
 *
 * <p>Example: after {@code sync([W1, W2])} the states are {@code [s1, s2]}; a later
 * {@code sync([W2, W3])} gives {@code [s2, s3]}: W2 keeps its state (every lane's instance sees
 * the same one), W3's is created.
 *
 * <p>The arrays are rebuilt only when another list object is passed (the slot table passes the
 * same immutable list until the members change), so a pick costs one identity comparison.
 */
final class MemberStates<S> {
  private final Signals<S> signals;
  private List<Endpoint> members;
  private Object[] states = new Object[0];
  private Endpoint[] endpoints = new Endpoint[0];

  MemberStates(Signals<S> signals) {
    this.signals = signals;
  }

  /** The states parallel to {@code members}, rebuilt when it is not the list seen last time. */
  Object[] sync(List<Endpoint> members) {
    if (members != this.members) {
      Object[] array = new Object[members.size()];
      for (int i = 0; i < array.length; i++) {
        array[i] = signals.of(members.get(i));
      }
      this.members = members;
      this.states = array;
      this.endpoints = members.toArray(new Endpoint[0]);
    }
    return states;
  }

  /** The members as an array, as of the last {@link #sync}. */
  Endpoint[] endpoints() {
    return endpoints;
  }

  /** The state of {@code endpoint}. */
  S get(Endpoint endpoint) {
    return signals.of(endpoint);
  }
}
