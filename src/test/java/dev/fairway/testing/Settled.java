package dev.fairway.testing;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A count read until it stops changing: for what a test can only see settle, such as the bytes a
 * stalled transfer has pinned or sent.
 *
 * <p>Example: {@code Settled.value(sent::get, 1000, deadline)} polls every 20 ms and returns the
 * count once it held still for a second, or its last value at {@code deadline}.
 */
public final class Settled {
  private Settled() {
  }

  /**
   * @param quietMs        how long the value must hold still
   * @param deadlineNanos  {@code System.nanoTime()} after which the last value read is returned
   */
  public static long value(LongSupplier count, long quietMs, long deadlineNanos) throws InterruptedException {
    long last = -1;
    long since = System.nanoTime();
    while (System.nanoTime() < deadlineNanos) {
      long now = count.getAsLong();
      if (now != last) {
        last = now;
        since = System.nanoTime();
      } else if (System.nanoTime() - since > TimeUnit.MILLISECONDS.toNanos(quietMs)) {
        break;
      }
      Thread.sleep(20);
    }
    return last;
  }
}
