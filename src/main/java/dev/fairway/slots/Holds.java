package dev.fairway.slots;

import dev.fairway.balancer.Endpoint;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the slot table keeps back after failures, each until its time: slots of requests that
 * failed fast (the failure penalty) and backends held back after a failure streak (local
 * ejection).
 *
 * <p>Example: a request to b1 fails after 1 ms with a 100 ms penalty: {@code penalize(b1, t + 99
 * ms)} keeps its slot taken; {@code expire(t + 99 ms)} gives it back and returns b1, whose waiters
 * may then be served.
 *
 * <p>Used under the table's lock, but for {@link #due}, which any thread may read.
 */
final class Holds {
  private static final Logger LOG = LoggerFactory.getLogger(Holds.class);
  private record Penalty(Endpoint endpoint, long until) {
  }

  private final PriorityQueue<Penalty> penalties = new PriorityQueue<>((a, b) -> Long.compare(a.until - b.until, 0));
  private final Map<Endpoint, Long> held = new IdentityHashMap<>();
  private volatile boolean pending;
  private volatile long nextDue;

  /**
   * Keeps one slot of {@code e} taken until {@code until} (the endpoint, not the waiter: a waiter
   * may take a slot elsewhere meanwhile, e.g. for a retry).
   */
  void penalize(Endpoint e, long until) {
    penalties.add(new Penalty(e, until));
    reschedule();
  }

  /** Holds {@code e} back until {@code until}, {@code forMs} from now, after {@code why}. */
  void hold(Endpoint e, long until, long forMs, String why) {
    LOG.warn("backend {} held back on this proxy for {} ms: {}", e.id(), forMs, why);
    e.setHeld(true);
    held.put(e, until);
    reschedule();
  }

  /** Lets {@code e} go at once, if held; returns whether it was. */
  boolean release(Endpoint e) {
    if (held.remove(e) == null) {
      return false;
    }
    LOG.info("backend {} no longer held back on this proxy: the balancer counts it usable again", e.id());
    e.setHeld(false);
    reschedule();
    return true;
  }

  /**
   * Whether holding {@code e} back leaves each of {@code sharing} (the services over it) with at
   * most {@code maxPercent} of its members out (rounded down) and one usable.
   */
  static boolean mayHold(Endpoint e, List<ServiceSlots> sharing, int maxPercent) {
    for (ServiceSlots x : sharing) {
      int n = x.members.size();
      int out = 1;
      for (Endpoint m : x.members) {
        if (m != e && m.limit() == 0) {
          out++;
        }
      }
      if (out > Math.min(n - 1, n * maxPercent / 100)) {
        return false;
      }
    }
    return true;
  }

  /** Whether something may be due at {@code now}: a cheap check before taking the lock. */
  boolean due(long now) {
    return pending && now - nextDue >= 0;
  }

  /** Ends every penalty and hold due at {@code now}; returns the endpoints that got room. */
  List<Endpoint> expire(long now) {
    List<Endpoint> freed = new ArrayList<>();
    while (!penalties.isEmpty() && now - penalties.peek().until >= 0) {
      Endpoint e = penalties.poll().endpoint;
      e.release();
      freed.add(e);
    }
    for (Iterator<Map.Entry<Endpoint, Long>> it = held.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Endpoint, Long> h = it.next();
      if (now - h.getValue() >= 0) {
        LOG.info("backend {} no longer held back on this proxy: its hold time is over", h.getKey().id());
        h.getKey().setHeld(false);
        freed.add(h.getKey());
        it.remove();
      }
    }
    reschedule();
    return freed;
  }

  private void reschedule() {
    boolean any = false;
    long next = 0;
    if (!penalties.isEmpty()) {
      next = penalties.peek().until;
      any = true;
    }
    for (long until : held.values()) {
      if (!any || until - next < 0) {
        next = until;
        any = true;
      }
    }
    nextDue = next;
    pending = any;
  }
}
