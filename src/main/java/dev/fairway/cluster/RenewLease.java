package dev.fairway.cluster;

import com.hazelcast.map.EntryProcessor;
import dev.fairway.lease.LeaseBook;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One member's lease renewal on one backend, run by Hazelcast atomically on the entry's owner
 * ({@link LeaseBook#renew}); answers the share granted.
 *
 * <p>Example: {@code map.submitToKey("b1", new RenewLease("7f…", 20, 7, 23, now, members))}
 * completes with 14 once the other members' claims leave that much room.
 */
final class RenewLease implements EntryProcessor<String, String, Integer> {
  private static final long serialVersionUID = 1L;

  private final String self;
  private final int capacity;
  private final int inUse;
  private final int demand;
  private final long nowMs;
  private final ArrayList<String> live;
  private final boolean uses;

  /**
   * @param inUse slots the member may have in flight until its next renewal: its requests in flight,
   *              or the share it still applies locally if that is more
   */
  RenewLease(String self, int capacity, int inUse, int demand, long nowMs, List<String> live) {
    this(self, capacity, inUse, demand, nowMs, live, true);
  }

  /** @param uses whether the member sends requests to the backend at all (see {@link LeaseBook#renew}) */
  RenewLease(String self, int capacity, int inUse, int demand, long nowMs, List<String> live, boolean uses) {
    this.uses = uses;
    this.self = self;
    this.capacity = capacity;
    this.inUse = inUse;
    this.demand = demand;
    this.nowMs = nowMs;
    this.live = new ArrayList<>(live);
  }

  @Override
  public Integer process(Map.Entry<String, String> entry) {
    LeaseBook.Renewal r = LeaseBook.renew(LeaseEntries.decode(entry.getValue()), self, capacity, inUse, demand, nowMs,
        live, uses);
    entry.setValue(LeaseEntries.encode(r.holdings()));
    return r.share();
  }
}
