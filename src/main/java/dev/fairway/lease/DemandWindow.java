package dev.fairway.lease;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Each backend's recent demand: the peak of the last {@code samples} readings of in use plus
 * waiting, so a member keeps asking for what it needed a moment ago while its share grows.
 *
 * <p>Example: with a window of 3, readings 5, 9, 2 give demand 9; a fourth reading of 4 pushes
 * the 5 out and still gives 9; two more readings of 1 push the 9 out: demand 4.
 *
 * <p>Not thread-safe: one lease thread records and reads it.
 */
public final class DemandWindow {
  private final int samples;
  private final Map<String, Deque<Integer>> readings = new HashMap<>();

  /** @param samples readings kept per backend, at least 1 */
  public DemandWindow(int samples) {
    this.samples = Math.max(1, samples);
  }

  /** Readings kept to cover {@code windowMs} when one is taken every {@code intervalMs}. */
  public static int samplesFor(long windowMs, long intervalMs) {
    return (int) Math.max(1, Math.min(1_000, (windowMs + intervalMs - 1) / Math.max(1, intervalMs)));
  }

  /** Records one reading per backend; backends missing from {@code now} are forgotten. */
  public void record(Map<String, Integer> now) {
    readings.keySet().retainAll(now.keySet());
    now.forEach((id, v) -> {
      Deque<Integer> d = readings.computeIfAbsent(id, k -> new ArrayDeque<>());
      d.addLast(v);
      while (d.size() > samples) {
        d.removeFirst();
      }
    });
  }

  /** The peak of a backend's kept readings, 0 if it has none. */
  public int peak(String id) {
    Deque<Integer> d = readings.get(id);
    int max = 0;
    if (d != null) {
      for (int v : d) {
        max = Math.max(max, v);
      }
    }
    return max;
  }
}
