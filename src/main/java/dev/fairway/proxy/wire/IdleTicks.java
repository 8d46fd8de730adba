package dev.fairway.proxy.wire;

/**
 * Idle detection without a timestamp per read or write: the owner notes activity with
 * {@link #touch} and a timer asks, every tick, whether the last {@code n} ticks were all quiet.
 *
 * <p>Example: with ticks of a quarter of {@code idleTimeoutMs}, {@code touch(), tick, tick, tick,
 * tick} answers {@code quietFor(4)} with false, false, false, true on the four ticks after the
 * touch's own: the connection closes within 1.25 times the timeout of its last activity.
 */
public final class IdleTicks {
  private boolean activity = true;
  private int quiet;

  /** Something was read or sent. */
  public void touch() {
    activity = true;
  }

  /** A tick passed: whether it ended the {@code ticks}-th quiet tick in a row. */
  public boolean quietFor(int ticks) {
    if (activity) {
      activity = false;
      quiet = 0;
      return false;
    }
    return ++quiet >= ticks;
  }
}
