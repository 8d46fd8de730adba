package dev.fairway.health;

import dev.fairway.config.OutlierSettings;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Passive health checking: ejects backends whose requests keep failing, for a time that grows
 * with each ejection, and never too many of them at once.
 *
 * <p>Example with {@link OutlierSettings#DEFAULTS} over members b1, b2, b3: five failures in a
 * row of b1 at t = 0 eject it until t = 30 s; a success in between would have reset its count.
 * Five failures of b2 then change nothing (at most 50% of 3, rounded down: one ejection at a
 * time). The share is counted per service subset ({@link #setGroups}), and the last usable
 * backend of a service is never ejected. A passing health check ends an ejection early
 * ({@link #endEarly}). {@code returnDue(30 s)} ends b1's ejection; its next ejection lasts 60 s, then 90 s,
 * capped at 300 s. Each 300 s clean since its last return lowers the count again by one.
 *
 * <p>The caller reports connect failures and 5xx answers as failures, anything else as success,
 * and applies the events to {@link BackendStatus}. Results of ejected backends (late responses of
 * requests already in flight) are ignored. Time is the caller's {@code nowNanos} (e.g.
 * {@code System.nanoTime()}), compared overflow-safely. Not thread-safe.
 */
public final class OutlierDetector {
  private static final long NANOS_PER_MS = 1_000_000L;

  private final OutlierSettings settings;
  private final Map<String, Track> tracks = new TreeMap<>();
  /** The services' subsets the ejection share is counted in; empty: all members form one. */
  private List<Set<String>> groups = List.of();

  private static final class Track {
    int failures;
    int ejections;
    boolean ejected;
    long returnAt;
    boolean returnedOnce;
    long returnedAt;
  }

  public OutlierDetector(OutlierSettings settings) {
    this.settings = settings;
  }

  /**
   * Sets the backends this detector watches and counts the ejection share against (a service's
   * subset). New ids start clean; ids no longer present are forgotten, ejected or not.
   */
  public void setMembers(Collection<String> ids) {
    tracks.keySet().retainAll(ids);
    for (String id : ids) {
      tracks.computeIfAbsent(id, k -> new Track());
    }
  }

  /**
   * Sets the groups (each service's subset) the ejection share is counted in: a member is ejected
   * only if, in every group holding it, the ejected stay within {@code maxEjectionPercent} and
   * another member stays usable. Example: groups {@code [b1]} and {@code [b2, b3, b4]}: b1, the
   * only backend of its service, is never ejected; of b2..b4 at most one is (50 % of 3).
   */
  public void setGroups(Collection<? extends Collection<String>> subsets) {
    List<Set<String>> g = new ArrayList<>();
    for (Collection<String> subset : subsets) {
      g.add(Set.copyOf(subset));
    }
    this.groups = List.copyOf(g);
  }

  /** Most members that may be ejected at once. */
  public int maxEjected() {
    return maxEjected(tracks.size());
  }

  private int maxEjected(int n) {
    return Math.max(0, Math.min(n - 1, n * settings.maxEjectionPercent() / 100));
  }

  /**
   * Whether ejecting {@code id} keeps every group holding it within its share and with another
   * usable member ({@code usable}: healthy, not lame duck, draining or ejected).
   */
  private boolean mayEject(String id, Predicate<String> usable) {
    List<? extends Collection<String>> in = groups.isEmpty() ? List.of(tracks.keySet()) : groups;
    boolean held = false;
    for (Collection<String> group : in) {
      if (!group.contains(id)) {
        continue;
      }
      held = true;
      int ejected = 0;
      int othersUsable = 0;
      for (String m : group) {
        if (ejected(m)) {
          ejected++;
        } else if (!m.equals(id) && usable.test(m)) {
          othersUsable++;
        }
      }
      if (ejected + 1 > maxEjected(group.size()) || othersUsable == 0) {
        return false;
      }
    }
    return held;
  }

  public int ejectedCount() {
    int count = 0;
    for (Track t : tracks.values()) {
      if (t.ejected) {
        count++;
      }
    }
    return count;
  }

  public boolean ejected(String id) {
    Track t = tracks.get(id);
    return t != null && t.ejected;
  }

  /** Failures in a row of a member, 0 for unknown ids. */
  public int consecutiveFailures(String id) {
    Track t = tracks.get(id);
    return t == null ? 0 : t.failures;
  }

  /** A request to {@code id} succeeded: its failure count starts again from zero. */
  public void onSuccess(String id) {
    Track t = tracks.get(id);
    if (t != null && !t.ejected) {
      t.failures = 0;
    }
  }

  /**
   * A request to {@code id} failed (no connection, or a 5xx answer).
   *
   * @param cause e.g. {@code connection refused} or {@code HTTP 503}
   * @return the ejection this failure caused, if any
   */
  public Optional<OutlierEvent> onFailure(String id, String cause, long nowNanos) {
    return onFailure(id, cause, nowNanos, m -> true);
  }

  /**
   * As {@link #onFailure(String, String, long)}, with what the caller knows of the other members:
   * {@code usable} tells whether a member takes requests (healthy, not lame duck or draining).
   */
  public Optional<OutlierEvent> onFailure(String id, String cause, long nowNanos, Predicate<String> usable) {
    Track t = tracks.get(id);
    if (t == null || t.ejected) {
      return Optional.empty();
    }
    t.failures = t.failures == Integer.MAX_VALUE ? t.failures : t.failures + 1;
    if (t.failures < settings.consecutive5xx() || !mayEject(id, usable)) {
      return Optional.empty();
    }
    if (t.returnedOnce) {
      long clean = (nowNanos - t.returnedAt) / (settings.maxEjectionMs() * NANOS_PER_MS);
      t.ejections = (int) Math.max(0, t.ejections - Math.max(0, clean));
    }
    t.ejections++;
    long ms = Math.min(settings.maxEjectionMs(), settings.baseEjectionMs() * t.ejections);
    int failures = t.failures;
    t.failures = 0;
    t.ejected = true;
    t.returnAt = nowNanos + ms * NANOS_PER_MS;
    return Optional.of(new OutlierEvent(id, true, t.returnAt, failures + " consecutive failures, last: "
        + cause + "; ejected for " + seconds(ms) + " (ejection " + t.ejections + ")"));
  }

  /**
   * An active health check of {@code id} passed: its ejection ends now rather than at its time
   * (the count of ejections stays, so a next one lasts longer).
   */
  public Optional<OutlierEvent> endEarly(String id, long nowNanos) {
    Track t = tracks.get(id);
    if (t == null || !t.ejected) {
      return Optional.empty();
    }
    t.ejected = false;
    t.returnedOnce = true;
    t.returnedAt = nowNanos;
    return Optional.of(new OutlierEvent(id, false, nowNanos, "ejection " + t.ejections + " ended: health check passed"));
  }

  /** Ends every ejection whose time has come, in id order. */
  public List<OutlierEvent> returnDue(long nowNanos) {
    List<OutlierEvent> events = new ArrayList<>();
    for (Map.Entry<String, Track> e : tracks.entrySet()) {
      Track t = e.getValue();
      if (t.ejected && nowNanos - t.returnAt >= 0) {
        t.ejected = false;
        t.returnedOnce = true;
        t.returnedAt = t.returnAt;
        events.add(new OutlierEvent(e.getKey(), false, t.returnAt, "ejection " + t.ejections + " ended"));
      }
    }
    return events;
  }

  /** When the earliest ejection ends, to schedule the next {@link #returnDue(long)}. */
  public OptionalLong nextReturnNanos() {
    boolean found = false;
    long next = 0;
    for (Track t : tracks.values()) {
      if (t.ejected && (!found || t.returnAt - next < 0)) {
        next = t.returnAt;
        found = true;
      }
    }
    return found ? OptionalLong.of(next) : OptionalLong.empty();
  }

  private static String seconds(long ms) {
    return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
  }
}
