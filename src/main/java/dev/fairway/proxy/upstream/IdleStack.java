package dev.fairway.proxy.upstream;

import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The idle keep-alive connections of one backend in one event loop. The newest is reused first,
 * but one idle for {@code refresh} is reused before it expires; one idle for {@code expiry} is
 * closed; and at the end of each {@code window} the connections the window never needed (the
 * fewest that were idle at any moment of it) are closed. Pure and event-loop confined; time is
 * passed in.
 *
 * <p>Example (refresh 2 s, expiry 4 s, window 30 s): A, B and C go idle at 0, 1 and 1.5 s. A poll
 * at 1.8 s takes C, the newest; one at 2.5 s takes A, idle for 2.5 s, before it expires. So under
 * a steady load whose demand wanders, every connection is used again within seconds and none is
 * closed only to be opened again at the next peak; when the demand falls, the connections no
 * moment of a window needed are closed at its end, and any unused for 4 s are closed anyway.
 */
final class IdleStack<T extends IdleStack.Member> {
  /** A pooled connection: when it went idle. */
  interface Member {
    long idleSince();

    void idleSince(long nanos);
  }

  private final ArrayDeque<T> idle = new ArrayDeque<>();
  private final long refreshNanos;
  private final long expiryNanos;
  private final long windowNanos;
  private long windowStart;
  /** The fewest connections idle at once since {@link #windowStart}. */
  private int fewest;

  IdleStack(long refreshNanos, long expiryNanos, long windowNanos, long nowNanos) {
    this.refreshNanos = refreshNanos;
    this.expiryNanos = expiryNanos;
    this.windowNanos = windowNanos;
    this.windowStart = nowNanos;
  }

  /** {@code c} goes idle at {@code nowNanos}. */
  void offer(T c, long nowNanos) {
    c.idleSince(nowNanos);
    idle.addLast(c);
  }

  /** The connection to reuse now: the oldest if it has been idle for {@code refresh}, else the newest; {@code null} if none. */
  T poll(long nowNanos) {
    T oldest = idle.peekFirst();
    T c = oldest != null && nowNanos - oldest.idleSince() >= refreshNanos ? idle.pollFirst() : idle.pollLast();
    fewest = Math.min(fewest, idle.size());
    return c;
  }

  /**
   * Hands to {@code close} the connections idle for {@code expiry} or {@code dead}, oldest first,
   * and at a window's end the ones it never needed.
   */
  void sweep(long nowNanos, Predicate<T> dead, Consumer<T> close) {
    T c;
    while ((c = idle.peekFirst()) != null && (nowNanos - c.idleSince() >= expiryNanos || dead.test(c))) {
      close.accept(idle.pollFirst());
    }
    fewest = Math.min(fewest, idle.size());
    if (nowNanos - windowStart >= windowNanos) {
      for (int n = Math.min(fewest, idle.size()); n > 0; n--) {
        close.accept(idle.pollFirst());
      }
      windowStart = nowNanos;
      fewest = idle.size();
    }
  }

  boolean isEmpty() {
    return idle.isEmpty();
  }

  /** Hands every idle connection to {@code close}. */
  void clear(Consumer<T> close) {
    idle.forEach(close);
    idle.clear();
    fewest = 0;
  }
}
