package dev.fairway.table;

import dev.fairway.config.ServiceConfig;
import dev.fairway.health.BackendState;
import dev.fairway.health.Transition;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Panic and the health checks under subsetting: which services spread over all of their backends,
 * and which backends this proxy checks. Part of {@link BackendTable}; not thread-safe.
 *
 * <p>Example: service {@code a} over b1..b9, subset size 3, this client's subset {@code [b2, b5,
 * b7]}, {@code panicThresholdPercent} 50. While all three are healthy only b2, b5 and b7 are
 * checked. b5 turns unhealthy: 2 of 3 is not below 50 %, but one more loss would be, so the
 * service is <em>near panic</em> and its six other backends are checked too, at once and then
 * every interval; each that was healthy when last known is unhealthy until that check passes.
 * b7 turns unhealthy: 1 of 3 is below 50 %, so {@code a} panics and its member list in the slot
 * table becomes all nine (the strategies pick among the available ones, in the subset or not).
 * b5 passes again: 2 of 3, the panic ends; b7 passes: 3 of 3, and the six others are no longer
 * checked.
 *
 * <p>A backend's checks run while it is <em>watched</em>: in some service's subset, or a backend
 * of a service near panic. An unwatched backend keeps its last known state. When it is watched
 * again after its checks stopped it is checked at once; until then it keeps its state if it is in
 * a subset (served optimistically, as at start-up), and is unhealthy otherwise, so that a panic
 * spreads only to backends known healthy. An unwatched backend that waits for a passing check (a
 * lame duck cleared) gets one check at once. A service whose subset holds all of its backends
 * never panics (there is nowhere further to spread).
 *
 * <p>Backends standing in for unavailable members ({@link Replacements}) count as usable members,
 * and the candidates for standing in are watched too: a service panics only when too few
 * replacements are known healthy.
 */
final class Panic {
  /** The reason an unwatched backend shows before its last known one. */
  static final String UNCHECKED = "not checked outside this proxy's subsets";
  /** Why a backend outside every subset waits for a check before a panic may use it. */
  static final String RESUMED = "checks resumed for a service near panic";
  /** Why a backend outside every subset waits for a check before it may stand in for a member. */
  static final String CANDIDATE = "checked to stand in for an unavailable subset member";

  private final TableListener listener;
  private final RandomGenerator random;
  private final Set<String> panicking = new LinkedHashSet<>();

  /** @param random spreads the health checks over ±10 % of an interval */
  Panic(TableListener listener, RandomGenerator random) {
    this.listener = listener;
    this.random = random;
  }

  /**
   * One service's subset health.
   *
   * <p>Example: 3 members, 1 usable, threshold 50: {@code 100 < 150} panics; 2 usable do not
   * panic ({@code 200 >= 150}) but are near it ({@code 100 < 150}).
   *
   * @param members   the subset's size
   * @param usable    how many of them take requests (healthy, not lame duck, ejected or draining),
   *                  replacements standing in for the others included
   * @param partial   whether the service has backends outside the subset
   * @param threshold {@code panicThresholdPercent}; 0 never panics
   */
  record Standing(int members, int usable, boolean partial, int threshold) {
    boolean panics() {
      return partial && threshold > 0 && usable * 100L < (long) threshold * members;
    }

    /** Whether it panics, or would after one more member is lost. */
    boolean nearPanic() {
      return partial && threshold > 0 && (usable - 1) * 100L < (long) threshold * members;
    }
  }

  /**
   * Decides after any change which services panic and which backends are watched; reports each
   * panic that starts or ends and asks for the checks newly watched backends need.
   *
   * @return the services that panic now
   */
  Set<String> update(Collection<ServiceConfig> services, Map<String, List<String>> members,
                     Map<String, Set<String>> subsets, Map<String, Backend> backends, Replacements replacements) {
    Set<String> inSubsets = new HashSet<>();
    subsets.values().forEach(inSubsets::addAll);
    Set<String> watched = new HashSet<>(inSubsets);
    Set<String> candidates = replacements.watched();
    Set<String> names = new HashSet<>();
    for (ServiceConfig s : services) {
      List<String> ids = members.get(s.name());
      Set<String> subset = subsets.get(s.name());
      int standIns = replacements.count(s.name());
      int usable = standIns
          + (int) subset.stream().map(backends::get).filter(e -> e != null && e.status.available()).count();
      Standing st = new Standing(subset.size(), usable, subset.size() < ids.size(), s.panicThresholdPercent());
      if (st.nearPanic()) {
        watched.addAll(ids);
      }
      report(s.name(), st, ids.size(), standIns);
      names.add(s.name());
    }
    panicking.retainAll(names);
    candidates.removeAll(watched);
    for (Backend e : backends.values()) {
      boolean candidate = candidates.contains(e.id());
      watch(e, candidate || watched.contains(e.id()), inSubsets.contains(e.id()), candidate ? CANDIDATE : RESUMED);
    }
    return Set.copyOf(panicking);
  }

  private void report(String service, Standing st, int all, int standIns) {
    String counts = st.usable() + " of " + st.members() + " subset members healthy"
        + (standIns > 0 ? " (" + standIns + " of them standing in)" : "");
    if (st.panics() && panicking.add(service)) {
      listener.panic(service, true, "service " + service + ": panic: " + counts + ", below " + st.threshold()
          + " %; spreading over all " + all + " backends of the service");
    } else if (!st.panics() && panicking.remove(service)) {
      listener.panic(service, false, "service " + service + ": panic over: " + counts + "; back to the subset");
    }
  }

  private void watch(Backend e, boolean watched, boolean inSubset, String why) {
    e.watched = watched;
    if (e.probing) {
      return;
    }
    if (!watched) {
      e.stale = true;
      return;
    }
    long delay = e.firstCheckMs;
    if (e.stale) {
      delay = 1;
      e.unknown = !inSubset;
      if (!inSubset && e.status.health().healthy()) {
        BackendState before = e.status.state();
        e.status.health().awaitPassingCheck(why);
        if (e.status.state() != before) {
          listener.transitioned(e.id(), new Transition(before, e.status.state(), e.status.reason()));
        }
      }
    }
    e.stale = false;
    e.firstCheckMs = 1;
    e.probing = true;
    listener.checkDue(e.id(), delay);
  }

  /**
   * A check of {@code e} ended: while it is watched the next one is due in one interval, ±10 %;
   * otherwise its checks stop.
   */
  void afterCheck(Backend e) {
    if (!e.watched) {
      e.probing = false;
      e.stale = true;
      return;
    }
    e.probing = true;
    long interval = e.healthCheck.intervalMs();
    long jitter = interval / 10;
    listener.checkDue(e.id(), interval - jitter + random.nextLong(2 * jitter + 1));
  }

  /**
   * {@code e} waits for a passing check (lame duck cleared, ejection ended): its scheduled check
   * runs now, or, if its checks stopped, one check runs at once.
   */
  void checkNow(Backend e) {
    if (e.probing) {
      listener.checkNow(e.id());
    } else {
      e.probing = true;
      listener.checkDue(e.id(), 1);
    }
  }

  boolean panicking(String service) {
    return panicking.contains(service);
  }
}
