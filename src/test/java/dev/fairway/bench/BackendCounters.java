package dev.fairway.bench;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What one {@link OverloadBackend} port saw: attempts and accepts in all and per second of the
 * run, its 503s (refused while failing, or busy beyond its capacity), its peak concurrency, the
 * attempts that arrived after the client's deadline and those a proxy marked as retries.
 *
 * <p>Example: {@link #report(int)} gives {@code port 31401 attempts 120 accepts 100 refused 15
 * busy 5 peak 2 late 0 retried 3} and then one line per second, {@code sec 0 12 10}: second 0 of
 * the run had 12 attempts, of which 10 were accepted.
 */
final class BackendCounters {
  final AtomicLong attempts = new AtomicLong();
  final AtomicLong accepts = new AtomicLong();
  final AtomicLong refused = new AtomicLong();
  final AtomicLong busy = new AtomicLong();
  final AtomicLong late = new AtomicLong();
  final AtomicLong retried = new AtomicLong();
  final AtomicInteger active = new AtomicInteger();
  final AtomicInteger peak = new AtomicInteger();
  private final AtomicLongArray attemptsPerSecond;
  private final AtomicLongArray acceptsPerSecond;

  BackendCounters(int seconds) {
    attemptsPerSecond = new AtomicLongArray(seconds + 1);
    acceptsPerSecond = new AtomicLongArray(seconds + 1);
  }

  void attempt(int second) {
    attempts.incrementAndGet();
    attemptsPerSecond.incrementAndGet(clamp(second));
  }

  void accept(int second) {
    accepts.incrementAndGet();
    acceptsPerSecond.incrementAndGet(clamp(second));
  }

  /** Takes one unit of concurrency if fewer than {@code capacity} are in use. */
  boolean tryEnter(int capacity) {
    while (true) {
      int now = active.get();
      if (now >= capacity) {
        return false;
      }
      if (active.compareAndSet(now, now + 1)) {
        peak.accumulateAndGet(now + 1, Math::max);
        return true;
      }
    }
  }

  private int clamp(int second) {
    return Math.max(0, Math.min(second, attemptsPerSecond.length() - 1));
  }

  String report(int port) {
    StringBuilder b = new StringBuilder();
    b.append("port ").append(port).append(" attempts ").append(attempts.get()).append(" accepts ").append(accepts.get())
        .append(" refused ").append(refused.get()).append(" busy ").append(busy.get()).append(" peak ").append(peak.get())
        .append(" late ").append(late.get()).append(" retried ").append(retried.get()).append('\n');
    int last = attemptsPerSecond.length() - 1;
    while (last > 0 && attemptsPerSecond.get(last) == 0) {
      last--;
    }
    for (int s = 0; s <= last; s++) {
      b.append("sec ").append(s).append(' ').append(attemptsPerSecond.get(s)).append(' ')
          .append(acceptsPerSecond.get(s)).append('\n');
    }
    return b.toString();
  }
}
