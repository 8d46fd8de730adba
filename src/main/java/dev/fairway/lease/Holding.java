package dev.fairway.lease;

/**
 * What one cluster member holds of one backend's capacity, as the lease map records it.
 *
 * <p>Example: {@code new Holding(14, 14, 23, 1_000)}: the member may use 14 slots, uses 14 now,
 * would use 23 (in use plus waiting, the peak of the last second or so), reported at 1000 ms.
 *
 * @param share       slots the member may use
 * @param inUse       slots it had in use when it last reported
 * @param demand      slots it would use if it could: recent peak of in use plus waiting
 * @param updatedAtMs when it last reported, in the reporter's wall-clock milliseconds
 * @param uses        whether the member sends requests to the backend at all (it is in one of its
 *                    subsets); one that does not gets no share and leaves the capacity to the others
 */
public record Holding(int share, int inUse, int demand, long updatedAtMs, boolean uses) {
  public Holding {
    if (share < 0 || inUse < 0 || demand < 0) {
      throw new IllegalArgumentException("negative holding " + share + "/" + inUse + "/" + demand);
    }
  }

  /** A holding of a member that uses the backend. */
  public Holding(int share, int inUse, int demand, long updatedAtMs) {
    this(share, inUse, demand, updatedAtMs, true);
  }

  /** Slots the member may have in flight now: its share, or more while in-flight requests above a lowered share finish. */
  public int claim() {
    return Math.max(share, inUse);
  }
}
