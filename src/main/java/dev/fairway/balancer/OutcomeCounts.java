package dev.fairway.balancer;

/**
 * The counts of one backend's requests in one period, as they come, until they become an
 * {@link Observation}. Not thread-safe: one proxy verticle's tally owns it.
 *
 * <p>Example: {@code add(2_000_000, SUCCESS, null)}, then {@code SERVER_ERROR},
 * {@code OVERLOADED} and {@code GATEWAY_FAILURE}, 1 ms each, give {@code Observation[b1,
 * requests=4, failures=3, successes=1, overloaded=1, fiveXx=Run[0, 2, 2, true],
 * gatewayFailures=Run[0, 1, 1, true], latencyNanos=5000000, loadReport=null]}: the overloaded 503
 * neither counts in a run nor breaks one, the 500 breaks the gateway run.
 */
public final class OutcomeCounts {
  /** One kind of run, as it grows. */
  private static final class Streak {
    int first;
    int longest;
    int last;
    boolean broken;

    void fail() {
      last++;
      if (!broken) {
        first = last;
      }
      longest = Math.max(longest, last);
    }

    void breakRun() {
      broken = true;
      last = 0;
    }

    Observation.Run run() {
      return new Observation.Run(first, longest, last, broken);
    }
  }

  private int requests;
  private int failures;
  private int successes;
  private int overloaded;
  private final Streak fiveXx = new Streak();
  private final Streak gateway = new Streak();
  private long latencyNanos;
  private String loadReport;

  /**
   * One request ended.
   *
   * @param loadReport its {@code endpoint-load-metrics} value, or {@code null}
   */
  public void add(long latencyNanos, Outcome outcome, String loadReport) {
    requests++;
    this.latencyNanos += latencyNanos;
    if (outcome.failed()) {
      failures++;
    }
    switch (outcome) {
      case SUCCESS -> {
        successes++;
        fiveXx.breakRun();
        gateway.breakRun();
      }
      case SERVER_ERROR -> {
        fiveXx.fail();
        gateway.breakRun();
      }
      case GATEWAY_FAILURE -> {
        fiveXx.fail();
        gateway.fail();
      }
      case NO_ANSWER -> gateway.fail();
      case OVERLOADED -> overloaded++;
    }
    if (loadReport != null) {
      this.loadReport = loadReport;
    }
  }

  /** The counts so far, as the observation of {@code backendId}. */
  public Observation observation(String backendId) {
    return new Observation(backendId, requests, failures, successes, overloaded, fiveXx.run(), gateway.run(),
        latencyNanos, loadReport);
  }

  /**
   * The observation of {@code outcomes} in this order, each with no latency: for tests and
   * simulations.
   */
  public static Observation of(String backendId, Outcome... outcomes) {
    OutcomeCounts c = new OutcomeCounts();
    for (Outcome o : outcomes) {
      c.add(0, o, null);
    }
    return c.observation(backendId);
  }
}
