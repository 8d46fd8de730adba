package dev.fairway.slots;

import dev.fairway.balancer.Endpoint;
import dev.fairway.overload.Criticality;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A request asking a {@link SlotTable} for a slot. It is granted at once, or queued and later
 * either {@link #granted granted} or cancelled by its owner (timeout, client gone).
 *
 * <p>Example: a proxy exchange extends {@code Waiter}; {@code granted(b2)} is called under the
 * table's lock by whichever thread freed b2, so it must only hand the work to the exchange's own
 * event loop and return.
 *
 * <p>The state moves NEW → GRANTED → RELEASED, or NEW → WAITING → GRANTED → RELEASED, or
 * NEW → WAITING → CANCELLED (timed out, client gone, or {@link #shed shed} for a more critical
 * request). Moves out of WAITING happen under the table's lock, so a grant racing a timeout
 * resolves to exactly one of the two; GRANTED → RELEASED is an atomic compare-and-set, so a slot
 * is released at most once.
 */
public abstract class Waiter {
  enum State { NEW, WAITING, GRANTED, CANCELLED, RELEASED }

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(Waiter.class, "state", State.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  volatile State state = State.NEW;
  private Criticality criticality = Criticality.CRITICAL;
  /** The rank of the class it waits in, fixed when queued ({@link WaitQueue#add}). */
  int queuedRank;
  long seq;
  long enqueuedNanos;
  int lane;
  /** Neighbours in the service's queue while WAITING (an intrusive list: O(1) cancel). */
  Waiter prev;
  Waiter next;
  Endpoint endpoint;
  /** Requests active on {@link #endpoint} right after the grant, this one included. */
  int inFlight;
  ServiceSlots service;
  /** While a retry waits: the backend that just failed it, whose slots it must not take. */
  Endpoint excluded;

  /** Holds a slot of {@code e}, taken already. */
  void grant(Endpoint e) {
    endpoint = e;
    excluded = null;
    inFlight = e.active();
    state = State.GRANTED;
  }

  boolean compareAndSetState(State expected, State next) {
    return STATE.compareAndSet(this, expected, next);
  }

  /** The backend whose slot this waiter holds, once granted. */
  public final Endpoint endpoint() {
    return endpoint;
  }

  /** The service this waiter asked a slot of. */
  public final ServiceSlots service() {
    return service;
  }

  /** How much this request matters; {@link Criticality#CRITICAL} unless set. */
  public final Criticality criticality() {
    return criticality;
  }

  /**
   * Sets how much this request matters, before {@link SlotTable#acquire}: it orders the wait queue
   * and decides who is shed when the queue is full. A change while it waits counts from its next wait.
   */
  public final void criticality(Criticality c) {
    criticality = c == null ? Criticality.CRITICAL : c;
  }

  /** When it started waiting ({@code nowNanos} of {@link SlotTable#acquire}). */
  public final long enqueuedNanos() {
    return enqueuedNanos;
  }

  /**
   * A queued waiter got a slot on {@code endpoint}. Called under the table's lock from any thread:
   * hand off and return; never call back into the table from here.
   */
  protected abstract void granted(Endpoint endpoint);

  /**
   * A queued waiter was refused to make room for a more critical request in a full queue; it no
   * longer waits (its {@link SlotTable#cancel} returns {@code false}). Called under the table's lock
   * from any thread: hand off and return; never call back into the table from here.
   */
  protected abstract void shed();
}
