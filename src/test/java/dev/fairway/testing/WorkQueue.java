package dev.fairway.testing;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;

/**
 * A simulated server with {@code workers} workers and an unbounded FIFO queue, in virtual time: a
 * job submitted at {@code now} starts when the earliest-free worker is free and occupies it for
 * its service time. Nothing runs; the caller answers the job at the returned end time. Used both
 * by {@link SpreadBackend} (real time, {@code System.nanoTime()}) and by the deterministic
 * spread simulation (simulated time), so both measure utilization the same way.
 *
 * <p>Example: one worker, window 1 s, jobs of 300 ms submitted at 0 and 100 ms end at 300 and
 * 600 ms; at 1 s the utilization is 0.6 (busy 600 ms of the last 1000) and the rate 2 per second.
 *
 * <p>Utilization is busy time / wall time over the sliding window (divided by the number of
 * workers), capped at 1 by construction: an overloaded server shows 1 and a growing queue. The
 * rate counts jobs that ended in the window. While less than a window has passed since creation,
 * both use the time elapsed instead. Not thread-safe.
 */
public final class WorkQueue {
  /** One job's busy interval on a worker: [start, end). */
  private record Interval(long start, long end) {
  }

  private final long windowNanos;
  private final long createdNanos;
  private final long[] freeAt;
  private final ArrayDeque<Interval> recent = new ArrayDeque<>();
  private long scheduledNanos;
  private long assignedNanos;
  private long submitted;

  public WorkQueue(int workers, long windowNanos, long nowNanos) {
    if (workers < 1 || windowNanos <= 0) {
      throw new IllegalArgumentException("workers " + workers + ", window " + windowNanos);
    }
    this.windowNanos = windowNanos;
    this.createdNanos = nowNanos;
    this.freeAt = new long[workers];
    Arrays.fill(freeAt, nowNanos);
  }

  /** Queues a job arriving at {@code nowNanos}; returns when it ends (its answer is due). */
  public long submit(long nowNanos, long serviceNanos) {
    int w = 0;
    for (int i = 1; i < freeAt.length; i++) {
      if (freeAt[i] < freeAt[w]) {
        w = i;
      }
    }
    long start = Math.max(nowNanos, freeAt[w]);
    long end = start + serviceNanos;
    freeAt[w] = end;
    recent.addLast(new Interval(start, end));
    scheduledNanos += serviceNanos;
    assignedNanos += serviceNanos;
    submitted++;
    prune(nowNanos);
    return end;
  }

  /** Busy time / wall time over the last window, per worker (0..1). */
  public double utilization(long nowNanos) {
    prune(nowNanos);
    long from = nowNanos - span(nowNanos);
    long busy = 0;
    for (Interval iv : recent) {
      busy += Math.max(0, Math.min(iv.end, nowNanos) - Math.max(iv.start, from));
    }
    return busy / (double) span(nowNanos) / freeAt.length;
  }

  /** Jobs that ended in the last window, per second. */
  public double rate(long nowNanos) {
    prune(nowNanos);
    long from = nowNanos - span(nowNanos);
    int done = 0;
    for (Interval iv : recent) {
      if (iv.end > from && iv.end <= nowNanos) {
        done++;
      }
    }
    return done * 1e9 / span(nowNanos);
  }

  /** Cumulative busy time of all workers up to {@code nowNanos} (queued work not yet started excluded). */
  public long busyNanos(long nowNanos) {
    long future = 0;
    for (Interval iv : recent) {
      if (iv.end > nowNanos) {
        future += iv.end - Math.max(iv.start, nowNanos);
      }
    }
    return scheduledNanos - future;
  }

  /** Cumulative service time of every job submitted so far: the work sent here, done or not. */
  public long assignedNanos() {
    return assignedNanos;
  }

  /** Jobs submitted so far. */
  public long submitted() {
    return submitted;
  }

  /** Jobs submitted and not yet ended at {@code nowNanos} (in service or queued). */
  public int pending(long nowNanos) {
    int n = 0;
    for (Interval iv : recent) {
      if (iv.end > nowNanos) {
        n++;
      }
    }
    return n;
  }

  /** Drops every job not yet started and cuts the running ones short at {@code nowNanos}. */
  public void reset(long nowNanos) {
    ArrayDeque<Interval> kept = new ArrayDeque<>();
    for (Interval iv : recent) {
      if (iv.end <= nowNanos) {
        kept.addLast(iv);
      } else {
        scheduledNanos -= iv.end - Math.max(iv.start, nowNanos);
        if (iv.start < nowNanos) {
          kept.addLast(new Interval(iv.start, nowNanos));
        }
      }
    }
    recent.clear();
    recent.addAll(kept);
    Arrays.fill(freeAt, nowNanos);
  }

  private long span(long nowNanos) {
    return Math.max(1, Math.min(windowNanos, nowNanos - createdNanos));
  }

  /** Forgets intervals that ended before the window; queued ones (ending later) always stay. */
  private void prune(long nowNanos) {
    long from = nowNanos - windowNanos;
    for (Iterator<Interval> it = recent.iterator(); it.hasNext(); ) {
      Interval iv = it.next();
      if (iv.end > from) {
        break;
      }
      it.remove();
    }
  }
}
