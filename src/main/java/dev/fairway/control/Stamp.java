package dev.fairway.control;

import java.util.Comparator;

/**
 * When and where a runtime change was made, so that every member keeps the latest change of each
 * backend whatever order the changes reach it in.
 *
 * <p>Example: {@code new Stamp(1_000, "a")} is older than {@code new Stamp(2_000, "a")}, and
 * {@code new Stamp(1_000, "a")} older than {@code new Stamp(1_000, "b")}: equal times are ordered
 * by the origin's name, so two members that post at the same microsecond still agree.
 *
 * @param atMicros wall-clock time of the change on the member that made it, microseconds since the epoch
 * @param origin   the balancer that made it (a random id per process)
 */
public record Stamp(long atMicros, String origin) implements Comparable<Stamp> {
  private static final Comparator<Stamp> ORDER = Comparator.comparingLong(Stamp::atMicros)
      .thenComparing(Stamp::origin);

  @Override
  public int compareTo(Stamp other) {
    return ORDER.compare(this, other);
  }

  /** Whether this stamp is later than {@code other}; anything is later than {@code null}. */
  public boolean after(Stamp other) {
    return other == null || compareTo(other) > 0;
  }
}
