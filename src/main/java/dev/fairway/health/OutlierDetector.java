package dev.fairway.health;

import dev.fairway.balancer.Observation;
import dev.fairway.config.OutlierSettings;
import dev.fairway.config.OutlierSettings.SuccessRateSettings;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * Passive health checking of one service: ejects members whose requests keep failing, or whose
 * success rate lies far below their peers', for a time that grows with each ejection, and never
 * too many of them at once.
 *
 * <p>Example with {@link OutlierSettings#DEFAULTS} over members b1, b2, b3: five 5xx answers in a
 * row of b1 at t = 0 eject it until t = 30 s; a success in between would have reset its count.
 * Five of b2 then change nothing (at most 50 % of 3, rounded down: one ejection at a time), and the
 * last usable member is never ejected. {@code returnDue(30 s)} ends b1's ejection; its next
 * ejection lasts 60 s, then 90 s, capped at 300 s; each 300 s clean since its last return lowers
 * the count again by one. A passing health check ends an ejection early ({@link #endEarly}).
 *
 * <p>Two runs are counted (Envoy's): 5xx answers (500, 502, 503, 504, ...) against
 * {@code consecutive5xx}, and gateway failures (502, 503, 504, no connection, no answer in time)
 * against {@code consecutiveGatewayFailures}; a success breaks both, another 5xx the gateway run.
 * A backend's own 503 with {@code Retry-After} ({@code overloaded}) neither counts nor breaks a
 * run, and is left out of success rates: it sheds load, it is not broken. With
 * {@code successRate} on, {@link #evaluate} compares the members' success rates once per interval.
 *
 * <p>The share is counted in the service's subset ({@link #setGroup}); {@link Peers} tells what
 * the caller knows beyond: which members take requests, which another service's detector ejected
 * (a backend two services share), and whether those services can spare one. Results of ejected
 * members (late responses of requests in flight) are ignored. Time is the caller's
 * {@code nowNanos}, compared overflow-safely. Not thread-safe.
 */
public final class OutlierDetector {
  private static final long NANOS_PER_MS = 1_000_000L;

  private final OutlierSettings settings;
  private final Map<String, Track> tracks = new TreeMap<>();
  /** The service's subset, where the share is counted; {@code null}: all members. */
  private Set<String> group;
  private boolean windowOpen;
  private long windowStart;

  private static final class Track {
    int fiveXx;
    int gateway;
    long successes;
    long answered;
    int ejections;
    boolean ejected;
    long returnAt;
    boolean returnedOnce;
    long returnedAt;
  }

  /**
   * What the detector's caller knows of the members beyond their requests.
   *
   * <p>Example: {@code id -> true} ({@link #ALL_USABLE}) for a service whose every other member
   * takes requests and shares no backend.
   */
  @FunctionalInterface
  public interface Peers {
    /** Every member takes requests; no other service holds one. */
    Peers ALL_USABLE = id -> true;

    /** Whether a member takes requests now (healthy, not lame duck, ejected or draining). */
    boolean usable(String id);

    /** Whether another service's detector has ejected this member (a shared backend). */
    default boolean ejectedElsewhere(String id) {
      return false;
    }

    /** Whether every other service holding this member can spare it (see {@link #canSpare}). */
    default boolean allowedElsewhere(String id) {
      return true;
    }
  }

  public OutlierDetector(OutlierSettings settings) {
    this.settings = settings;
  }

  public OutlierSettings settings() {
    return settings;
  }

  /**
   * This detector's members and their ejections (end, count, last return) under new settings;
   * runs and success rates start again. Example: b1 ejected until 30 s stays ejected until 30 s,
   * and its next ejection is its second.
   */
  public OutlierDetector reconfigured(OutlierSettings next) {
    OutlierDetector d = new OutlierDetector(next);
    d.group = group;
    tracks.forEach((id, t) -> {
      Track n = new Track();
      n.ejections = t.ejections;
      n.ejected = t.ejected;
      n.returnAt = t.returnAt;
      n.returnedOnce = t.returnedOnce;
      n.returnedAt = t.returnedAt;
      d.tracks.put(id, n);
    });
    return d;
  }

  /**
   * Sets the backends this detector watches (the service's). New ids start clean; ids no longer
   * present are forgotten, ejected or not.
   */
  public void setMembers(Collection<String> ids) {
    tracks.keySet().retainAll(ids);
    for (String id : ids) {
      tracks.computeIfAbsent(id, k -> new Track());
    }
  }

  /** A new backend took {@code id} (its URL changed): it starts clean, ejected or not. */
  public void restart(String id) {
    tracks.computeIfPresent(id, (k, t) -> new Track());
  }

  /**
   * Sets the service's subset: a member is ejected only if it belongs to it, the ejected stay
   * within {@code maxEjectionPercent} of it and another of its members stays usable. Example:
   * subset {@code [b2, b3, b4]}: at most one of them is ejected (50 % of 3), and b1 never.
   */
  public void setGroup(Collection<String> subset) {
    this.group = Set.copyOf(subset);
  }

  /** Most members that may be ejected at once. */
  public int maxEjected() {
    return maxEjected(group == null ? tracks.size() : group.size());
  }

  private int maxEjected(int n) {
    return Math.max(0, Math.min(n - 1, n * settings.maxEjectionPercent() / 100));
  }

  /**
   * Whether this service can lose {@code id} now: it is not in the subset, or the subset's other
   * ejected members plus this one stay within the share and another member stays usable.
   */
  public boolean canSpare(String id, Peers peers) {
    Collection<String> g = group == null ? tracks.keySet() : group;
    if (!g.contains(id)) {
      return true;
    }
    int ejected = 0;
    int othersUsable = 0;
    for (String m : g) {
      if (m.equals(id)) {
        continue;
      }
      if (ejected(m) || peers.ejectedElsewhere(m)) {
        ejected++;
      } else if (peers.usable(m)) {
        othersUsable++;
      }
    }
    return ejected + 1 <= maxEjected(g.size()) && othersUsable > 0;
  }

  private boolean mayEject(String id, Peers peers) {
    boolean held = tracks.containsKey(id) && (group == null || group.contains(id));
    return held && canSpare(id, peers) && peers.allowedElsewhere(id);
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

  /** 5xx answers in a row of a member, 0 for unknown ids. */
  public int consecutive5xx(String id) {
    Track t = tracks.get(id);
    return t == null ? 0 : t.fiveXx;
  }

  /** Gateway failures in a row of a member, 0 for unknown ids. */
  public int consecutiveGatewayFailures(String id) {
    Track t = tracks.get(id);
    return t == null ? 0 : t.gateway;
  }

  /**
   * One period's requests to a member: continues its runs and counts its success rate.
   *
   * @return the ejection a run reaching its threshold caused, if any
   */
  public Optional<OutlierEvent> observe(Observation o, long nowNanos, Peers peers) {
    Track t = tracks.get(o.backendId());
    if (t == null || t.ejected) {
      return Optional.empty();
    }
    if (!windowOpen) {
      windowOpen = true;
      windowStart = nowNanos;
    }
    t.successes += o.successes();
    t.answered += o.answered();
    int fiveXxPeak = Math.max(add(t.fiveXx, o.fiveXx().first()), o.fiveXx().longest());
    int gatewayPeak = Math.max(add(t.gateway, o.gatewayFailures().first()), o.gatewayFailures().longest());
    t.fiveXx = o.fiveXx().broken() ? o.fiveXx().last() : add(t.fiveXx, o.fiveXx().first());
    t.gateway = o.gatewayFailures().broken() ? o.gatewayFailures().last() : add(t.gateway, o.gatewayFailures().first());
    String cause = fiveXxPeak >= settings.consecutive5xx() ? fiveXxPeak + " consecutive 5xx"
        : gatewayPeak >= settings.consecutiveGatewayFailures() ? gatewayPeak + " consecutive gateway failures"
        : null;
    if (cause == null || !mayEject(o.backendId(), peers)) {
      return Optional.empty();
    }
    return Optional.of(eject(o.backendId(), t, cause, nowNanos));
  }

  private static int add(int a, int b) {
    return (int) Math.min(Integer.MAX_VALUE, (long) a + b);
  }

  /**
   * Success-rate ejection, once {@code intervalMs} has passed since the window began (the first
   * observation): among the subset's members not ejected with at least {@code requestVolume}
   * answered requests, if at least {@code minimumHosts}, ejects those whose rate is below
   * {@code mean - stdevFactor * stdev}, lowest first, within the share; then a new window begins.
   * Example (defaults, 5 members, 100 requests each): rates 99, 99, 98, 99, 60 % eject the last.
   *
   * @return the ejections, lowest rate first; none when success-rate ejection is off
   */
  public List<OutlierEvent> evaluate(long nowNanos, Peers peers) {
    SuccessRateSettings sr = settings.successRate();
    if (sr == null || !windowOpen || nowNanos - windowStart < sr.intervalMs() * NANOS_PER_MS) {
      return List.of();
    }
    windowStart = nowNanos;
    Map<String, Double> rates = new TreeMap<>();
    tracks.forEach((id, t) -> {
      if (!t.ejected && t.answered >= sr.requestVolume() && (group == null || group.contains(id))) {
        rates.put(id, (double) t.successes / t.answered);
      }
      t.successes = 0;
      t.answered = 0;
    });
    if (rates.size() < sr.minimumHosts()) {
      return List.of();
    }
    double mean = rates.values().stream().mapToDouble(Double::doubleValue).average().orElse(0);
    double variance = rates.values().stream().mapToDouble(r -> (r - mean) * (r - mean)).average().orElse(0);
    double stdev = Math.sqrt(variance);
    double threshold = mean - sr.stdevFactor() * stdev;
    List<OutlierEvent> events = new ArrayList<>();
    rates.entrySet().stream().filter(e -> e.getValue() < threshold)
        .sorted(Map.Entry.<String, Double>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
        .forEach(e -> {
          if (mayEject(e.getKey(), peers)) {
            events.add(eject(e.getKey(), tracks.get(e.getKey()), String.format(Locale.ROOT,
                "success rate %.1f %% below %.1f %% (mean %.1f %%, stdev %.1f %%)", 100 * e.getValue(),
                100 * threshold, 100 * mean, 100 * stdev), nowNanos));
          }
        });
    return events;
  }

  private OutlierEvent eject(String id, Track t, String cause, long nowNanos) {
    if (t.returnedOnce) {
      long clean = (nowNanos - t.returnedAt) / (settings.maxEjectionMs() * NANOS_PER_MS);
      t.ejections = (int) Math.max(0, t.ejections - Math.max(0, clean));
    }
    t.ejections++;
    long ms = Math.min(settings.maxEjectionMs(), settings.baseEjectionMs() * t.ejections);
    t.fiveXx = 0;
    t.gateway = 0;
    t.successes = 0;
    t.answered = 0;
    t.ejected = true;
    t.returnAt = nowNanos + ms * NANOS_PER_MS;
    return new OutlierEvent(id, true, t.returnAt, cause + "; ejected for " + seconds(ms) + " (ejection "
        + t.ejections + ")");
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
