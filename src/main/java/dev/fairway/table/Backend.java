package dev.fairway.table;

import dev.fairway.balancer.CapabilityScore;
import dev.fairway.balancer.LoadReport;
import dev.fairway.balancer.OrcaBinary;
import dev.fairway.balancer.OrcaParser;
import dev.fairway.balancer.ScoreTracker;
import dev.fairway.config.BackendConfig;
import dev.fairway.config.BalancingSettings;
import dev.fairway.config.HealthCheckSettings;
import dev.fairway.config.UpstreamTls;
import dev.fairway.health.BackendState;
import dev.fairway.health.BackendStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The table's record of one backend: where it is, its capacity and weight, its state and the
 * services that list it. Owned by one {@link BackendTable}; not thread-safe.
 *
 * <p>Example: backend {@code b1} listed by services {@code a} and {@code b} is one entry with
 * {@code services = [a, b]}, one {@link BackendStatus} and one capacity.
 */
final class Backend {
  BackendConfig config;
  HealthCheckSettings healthCheck;
  /** How its health checks speak TLS to it, if it is {@code https://}: as its service's (the first one's). */
  UpstreamTls tls;
  final BackendStatus status;
  final Set<String> services = new LinkedHashSet<>();
  final LoadStats stats = new LoadStats();
  final ScoreTracker score;
  /** The capability score times the configured weight, as last published. */
  double weight;
  boolean inAnySubset = true;
  /** Whether this proxy checks it now (see {@link Panic}). */
  boolean watched;
  /** Whether a health check of it is scheduled or under way. */
  boolean probing;
  /** Whether its checks stopped since it was last watched, or never ran. */
  boolean stale;
  /**
   * Whether this proxy does not know its health: it came into watch from outside every subset and
   * no check has answered since; not usable as a replacement until one does.
   */
  boolean unknown;
  /** The delay of its first check once watched: spread over an interval at start-up, else at once. */
  long firstCheckMs = 1;
  /** How many binary load reports ({@code endpoint-load-metrics-bin}) were malformed and ignored. */
  long badLoadReports;

  Backend(BackendConfig config, HealthCheckSettings healthCheck, UpstreamTls tls, BalancingSettings balancing,
          BackendStatus status) {
    this.config = config;
    this.tls = tls;
    this.weight = config.weight();
    this.score = new ScoreTracker(balancing.blackoutMs() * 1_000_000L, balancing.expirationMs() * 1_000_000L,
        balancing.errorUtilizationPenalty());
    this.healthCheck = healthCheck;
    this.status = status;
  }

  String id() {
    return config.id();
  }

  /**
   * Feeds an ORCA report ({@code endpoint-load-metrics}, or {@code BIN } and the value of
   * {@code endpoint-load-metrics-bin}; may be {@code null}) to the score; a report without
   * {@code rps_fractional} or {@code eps} falls back to the rates this proxy observes itself. A
   * malformed binary report is ignored and counted.
   *
   * @return what was wrong with the first malformed binary report, to log once; else {@code null}
   */
  String onLoadReport(String header, long nowNanos) {
    if (header == null) {
      return null;
    }
    Optional<LoadReport> parsed;
    String problem = null;
    if (header.startsWith(OrcaBinary.TAG)) {
      OrcaBinary.Reading reading = OrcaBinary.read(header.substring(OrcaBinary.TAG.length()));
      parsed = Optional.ofNullable(reading.report());
      problem = reading.problem();
    } else {
      parsed = OrcaParser.parse(header);
    }
    parsed.ifPresent(r -> {
      double qps = r.qps() > 0 ? r.qps() : stats.qps;
      double eps = r.eps() > 0 ? r.eps() : stats.eps;
      score.update(new LoadReport(r.cpuUtilization(), r.applicationUtilization(), qps, eps), nowNanos);
      stats.utilization = r.applicationUtilization() > 0 ? r.applicationUtilization() : r.cpuUtilization();
    });
    return problem != null && badLoadReports++ == 0 ? problem : null;
  }

  /**
   * Recomputes the capability weights (A58) of {@code all} and keeps them.
   *
   * @return the weights that changed, by backend id, for the slot table
   */
  static Map<String, Double> reweigh(Collection<Backend> all, long nowNanos) {
    List<Backend> entries = new ArrayList<>(all);
    double[] configured = new double[entries.size()];
    List<ScoreTracker> trackers = new ArrayList<>(entries.size());
    for (int i = 0; i < configured.length; i++) {
      configured[i] = entries.get(i).config.weight();
      trackers.add(entries.get(i).score);
    }
    double[] weights = CapabilityScore.weights(trackers, configured, nowNanos);
    Map<String, Double> changed = new LinkedHashMap<>();
    for (int i = 0; i < weights.length; i++) {
      Backend e = entries.get(i);
      if (Math.abs(weights[i] - e.weight) > 1e-9 * Math.max(1, Math.abs(e.weight))) {
        e.weight = weights[i];
        changed.put(e.id(), weights[i]);
      }
    }
    return changed;
  }

  BackendView view() {
    boolean unchecked = !watched && (status.state() == BackendState.HEALTHY || status.state() == BackendState.UNHEALTHY);
    String reason = unchecked ? Panic.UNCHECKED + "; last: " + status.reason() : status.reason();
    return new BackendView(id(), config.url(), status.state(), reason, inAnySubset, config.capacity(), weight,
        stats.utilization, stats.qps, stats.eps, stats.latencyMs, badLoadReports);
  }
}
