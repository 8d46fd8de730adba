package dev.fairway.accesslog;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.slf4j.MarkerFactory;

/**
 * Takes access-log lines from the event loops without waking anybody, and logs them, one event a
 * line, to the logger {@code fairway.access} from one background thread every 5 ms.
 *
 * <p>Example: at 30,000 requests/s the event loops add 30,000 lines a second to a lock-free queue
 * and the {@code fairway-access-log} thread wakes 200 times a second to log about 150 lines each
 * time. Batching keeps the writer from waking for nearly every request, as a hand-off per line
 * would; a short period keeps each burst of logging short, so it does not hold a core away from
 * the event loops for long (the measurements behind both choices are in docs/benchmarks.md).
 *
 * <p>At most {@value #CAPACITY} lines wait; when the logger cannot keep up, further lines are
 * dropped rather than a request stalled or memory grown, and the drops are counted and reported
 * on the {@code dev.fairway} log at most once a second. Lines still waiting when the JVM exits are
 * logged by a shutdown hook. The last line of each drain carries the marker {@link #BATCH_END}, on
 * which the {@link AccessLogAppender} writes out what it has gathered.
 */
public final class AccessLogWriter {
  /** Lines that may wait for the writer; more are dropped. */
  static final int CAPACITY = 8192;
  /** Marks the last line of a drain: an appender that gathers lines writes them out now. */
  static final Marker BATCH_END = MarkerFactory.getMarker("FAIRWAY_ACCESS_BATCH_END");
  private static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  private static final Logger ACCESS = LoggerFactory.getLogger("fairway.access");
  private static final Logger LOG = LoggerFactory.getLogger(AccessLogWriter.class);
  private static AccessLogWriter shared;

  private final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();
  private final AtomicInteger waiting = new AtomicInteger();
  private final AtomicLong dropped = new AtomicLong();
  private long lastDropReport;

  /** A writer nobody drains but the caller of {@link #drain} (tests); use {@link #shared}. */
  AccessLogWriter() {
  }

  /** The process's writer, started on first use. */
  static synchronized AccessLogWriter shared() {
    if (shared == null) {
      AccessLogWriter w = new AccessLogWriter();
      Thread t = new Thread(w::run, "fairway-access-log");
      t.setDaemon(true);
      t.start();
      Runtime.getRuntime().addShutdownHook(new Thread(w::drain, "fairway-access-log-flush"));
      shared = w;
    }
    return shared;
  }

  /** Queues one line; {@code false} if it was dropped because {@value #CAPACITY} lines wait. */
  boolean offer(String line) {
    if (waiting.incrementAndGet() > CAPACITY) {
      waiting.decrementAndGet();
      dropped.incrementAndGet();
      return false;
    }
    lines.offer(line);
    return true;
  }

  private void run() {
    while (true) {
      LockSupport.parkNanos(PERIOD_NANOS);
      try {
        drain();
      } catch (RuntimeException e) {
        LOG.warn("access log: writing a line failed: {}", e.toString());
      }
    }
  }

  /** Logs every waiting line, in the order they came, the last one with the marker {@link #BATCH_END}. */
  synchronized void drain() {
    String line = lines.poll();
    while (line != null) {
      waiting.decrementAndGet();
      String next = lines.poll();
      if (next == null) {
        ACCESS.info(BATCH_END, line);
      } else {
        ACCESS.info(line);
      }
      line = next;
    }
    long now = System.nanoTime();
    if (dropped.get() > 0 && now - lastDropReport >= TimeUnit.SECONDS.toNanos(1)) {
      lastDropReport = now;
      LOG.warn("access log: dropped {} lines: more than {} were waiting for the logger", dropped.getAndSet(0), CAPACITY);
    }
  }
}
