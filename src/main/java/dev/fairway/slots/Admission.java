package dev.fairway.slots;

/**
 * What {@link SlotTable#acquire} did with a request.
 *
 * <p>Example: with every backend full and fewer than {@code maxWaiting} waiters the answer is
 * {@code QUEUED}; the waiter's {@link Waiter#granted} runs later, or the caller cancels it.
 */
public enum Admission {
  /** A slot was taken; {@link Waiter#endpoint()} names the backend. */
  GRANTED,
  /** Every eligible backend (or the service cap) is full; the waiter is queued. */
  QUEUED,
  /** No backend of the subset is available at all (unhealthy, lame duck, none configured). */
  NO_BACKEND,
  /**
   * Every backend is full and {@code maxWaiting} requests already wait, none of a class below this
   * request's (else the newest of the lowest such class is shed and this one waits).
   */
  QUEUE_FULL
}
