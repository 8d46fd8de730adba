package dev.fairway.proxy;

import dev.fairway.proxy.wire.IdleTicks;
import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes a client connection once nothing was read or sent for {@code idleTimeoutMs}: a timer
 * ticks every quarter of it and the connection closes after four quiet ticks in a row, so within
 * 1.25 times the timeout, without a timestamp taken per read or write.
 *
 * <p>Example: with {@code idleTimeoutMs} 60000 the timer ticks every 15 s; a connection last
 * used at 0 s sees quiet ticks at 30, 45, 60 and 75 s and closes at 75 s. Each tick also runs
 * {@code onTick} (an HTTP/2 connection times out its streams one by one there).
 */
final class IdleTimeout {
  static final int TICKS = 4;

  private final IdleTicks ticks = new IdleTicks();
  private ScheduledFuture<?> timer;

  /** Something was read or sent. */
  void touch() {
    ticks.touch();
  }

  /** Starts the ticks on {@code channel}'s event loop ({@code idleMs} ≤ 0: never). */
  void start(Channel channel, long idleMs, Runnable onTick) {
    if (idleMs > 0) {
      schedule(channel, TimeUnit.MILLISECONDS.toNanos(idleMs) / TICKS, onTick);
    }
  }

  private void schedule(Channel channel, long tickNanos, Runnable onTick) {
    timer = channel.eventLoop().schedule(() -> {
      if (!channel.isActive()) {
        return;
      }
      if (ticks.quietFor(TICKS)) {
        channel.close();
        return;
      }
      onTick.run();
      schedule(channel, tickNanos, onTick);
    }, tickNanos, TimeUnit.NANOSECONDS);
  }

  void stop() {
    if (timer != null) {
      timer.cancel(false);
    }
  }
}
