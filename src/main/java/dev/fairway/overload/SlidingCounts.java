package dev.fairway.overload;

/**
 * A few counters summed over a sliding time window, kept as a ring of buckets: a bucket leaves
 * the sums as a whole once it is a full window old.
 *
 * <p>Example: a window of 10 s in 10 buckets (1 s each) with one counter: {@code add(0, 0.5 s, 1)}
 * and {@code add(0, 3.2 s, 1)} give {@code total(0, 9.9 s) == 2}; at 10.0 s the bucket of
 * [0 s, 1 s) has left, so {@code total(0, 10.0 s) == 1}; at 13.0 s it is 0. The window therefore
 * covers between {@code buckets - 1} and {@code buckets} buckets of the past.
 *
 * <p>Time may only go forwards; an earlier {@code nowNanos} counts into the newest bucket. Not
 * thread-safe (one event loop's instance).
 */
final class SlidingCounts {
  private final long bucketNanos;
  private final long[][] buckets;
  private final long[] totals;
  private long newest;
  /** The ring slot of {@link #newest}. */
  private int newestSlot;
  /** When the bucket after {@link #newest} begins: until then a call changes no bucket, without a division. */
  private long nextBucketAt;
  private boolean started;

  /**
   * @param windowNanos how far back the sums reach; positive
   * @param bucketCount how many buckets the window is cut into; positive
   * @param counters    how many counters are kept
   */
  SlidingCounts(long windowNanos, int bucketCount, int counters) {
    if (windowNanos <= 0 || bucketCount <= 0) {
      throw new IllegalArgumentException("window and bucket count must be positive: " + windowNanos + ", "
          + bucketCount);
    }
    this.bucketNanos = Math.max(1, windowNanos / bucketCount);
    this.buckets = new long[bucketCount][counters];
    this.totals = new long[counters];
  }

  /** Adds {@code delta} to {@code counter} at {@code nowNanos}. */
  void add(int counter, long nowNanos, long delta) {
    advance(nowNanos);
    buckets[newestSlot][counter] += delta;
    totals[counter] += delta;
  }

  /** The sum of {@code counter} over the window that ends at {@code nowNanos}. */
  long total(int counter, long nowNanos) {
    advance(nowNanos);
    return totals[counter];
  }

  private void advance(long nowNanos) {
    if (started && nowNanos < nextBucketAt) {
      return;
    }
    long index = Math.floorDiv(nowNanos, bucketNanos);
    if (!started) {
      started = true;
      moveTo(index);
      return;
    }
    if (index <= newest) {
      return;
    }
    long steps = Math.min(index - newest, buckets.length);
    for (long i = 1; i <= steps; i++) {
      long[] expired = buckets[slot(newest + i)];
      for (int c = 0; c < expired.length; c++) {
        totals[c] -= expired[c];
        expired[c] = 0;
      }
    }
    moveTo(index);
  }

  private void moveTo(long index) {
    newest = index;
    newestSlot = slot(index);
    nextBucketAt = (index + 1) * bucketNanos; // an overflow near Long.MAX_VALUE only loses the shortcut
  }

  private int slot(long index) {
    return (int) Math.floorMod(index, (long) buckets.length);
  }
}
