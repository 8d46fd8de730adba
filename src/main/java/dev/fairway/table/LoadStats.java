package dev.fairway.table;

import dev.fairway.balancer.Observation;

/**
 * Rates one backend shows in the admin view: requests and errors per second and mean latency,
 * smoothed over about two seconds, plus the utilization it last reported.
 *
 * <p>Example: 120 requests with 6 failures and 240 ms of summed latency in a one-second tick,
 * starting from zero, read {@code qps = 60, eps = 3, latencyMs = 2} after that tick (half-way
 * smoothing), and approach 120, 6 and 2 over the next ticks.
 */
final class LoadStats {
  private static final double SMOOTHING = 0.5;

  private long requests;
  private long failures;
  private long latencyNanos;
  double qps;
  double eps;
  double latencyMs;
  double utilization;

  void add(Observation o) {
    requests += o.requests();
    failures += o.failures();
    latencyNanos += o.latencyNanos();
  }

  /** Folds the counts of the last {@code seconds} into the rates and starts a new period. */
  void tick(double seconds) {
    double q = requests / seconds;
    double e = failures / seconds;
    qps += SMOOTHING * (q - qps);
    eps += SMOOTHING * (e - eps);
    if (requests > 0) {
      double l = latencyNanos / 1e6 / requests;
      latencyMs = latencyMs == 0 ? l : latencyMs + SMOOTHING * (l - latencyMs);
    }
    requests = 0;
    failures = 0;
    latencyNanos = 0;
  }
}
