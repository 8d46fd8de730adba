package dev.fairway.metrics;

/**
 * The balancer's latest view of one backend, read by its gauges at scrape time.
 *
 * <p>Example: after {@code set("lame-duck", 2.5, 0.4)} a scrape shows
 * {@code fairway_backend_state{backend="b1",state="lame-duck"} 1.0} (0 for the other states),
 * {@code fairway_backend_weight{backend="b1"} 2.5} and
 * {@code fairway_backend_utilization{backend="b1"} 0.4}; after {@code set(..., 3)}
 * {@code fairway_backend_bad_load_reports_total{backend="b1"} 3.0}.
 */
public final class BackendReadings {
  private volatile String state = "healthy";
  private volatile double weight = 1;
  private volatile double utilization;
  private volatile long badLoadReports;

  /** Updates all the readings. */
  public void set(String state, double weight, double utilization, long badLoadReports) {
    this.state = state;
    this.weight = weight;
    this.utilization = utilization;
    this.badLoadReports = badLoadReports;
  }

  double isIn(String s) {
    return s.equals(state) ? 1 : 0;
  }

  double weight() {
    return weight;
  }

  double utilization() {
    return utilization;
  }

  double badLoadReports() {
    return badLoadReports;
  }
}
