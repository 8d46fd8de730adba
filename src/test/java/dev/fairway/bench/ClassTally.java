package dev.fairway.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One criticality class's outcomes in {@link OverloadLoad}: requests sent, answers by status
 * (2xx, 503, 504, other, including client time-outs and connection errors) and the latencies of
 * its 2xx answers.
 *
 * <p>Example: after 100 sends of which 97 got 200 and 3 got 503, {@link #line()} is {@code class
 * critical sent 100 ok 97 s503 3 s504 0 other 0 p50 101.3 p99 180.2} (milliseconds, 2xx only).
 */
final class ClassTally {
  private final String name;
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong ok = new AtomicLong();
  private final AtomicLong s503 = new AtomicLong();
  private final AtomicLong s504 = new AtomicLong();
  private final AtomicLong other = new AtomicLong();
  private final List<Long> okMicros = new ArrayList<>();

  ClassTally(String name) {
    this.name = name;
  }

  String name() {
    return name;
  }

  void sent() {
    sent.incrementAndGet();
  }

  /** Records an answer with {@code status}, or a failure to get one ({@code status} -1). */
  void answered(int status, long micros) {
    if (status >= 200 && status < 300) {
      ok.incrementAndGet();
      synchronized (okMicros) {
        okMicros.add(micros);
      }
    } else if (status == 503) {
      s503.incrementAndGet();
    } else if (status == 504) {
      s504.incrementAndGet();
    } else {
      other.incrementAndGet();
    }
  }

  String line() {
    List<Long> sorted;
    synchronized (okMicros) {
      sorted = new ArrayList<>(okMicros);
    }
    Collections.sort(sorted);
    return String.format("class %s sent %d ok %d s503 %d s504 %d other %d p50 %.1f p99 %.1f", name, sent.get(), ok.get(),
        s503.get(), s504.get(), other.get(), percentile(sorted, 0.50), percentile(sorted, 0.99));
  }

  private static double percentile(List<Long> sorted, double q) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int i = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, i)) / 1000.0;
  }
}
