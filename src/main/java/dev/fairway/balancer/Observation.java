package dev.fairway.balancer;

/**
 * What one proxy verticle saw of one backend during one batching period (about 250 ms), with the
 * failures told apart as passive ejection needs them.
 *
 * <p>Example: answers 200, 500, 502, a connect failure, 503 with {@code Retry-After}, 502 give
 * {@code requests=6, failures=5, successes=1, overloaded=1}, {@code fiveXx=Run[first=0, longest=3,
 * last=3, broken=true]} (500, 502, 502: the connect failure and the overloaded 503 neither count
 * nor break the run) and {@code gatewayFailures=Run[0, 3, 3, true]} (502, connect failure, 502:
 * the 500 broke the run before them).
 *
 * @param backendId       the backend
 * @param requests        requests completed (or failed)
 * @param failures        requests that did not succeed ({@link Outcome#failed()}), the overloaded included
 * @param successes       answers below 500
 * @param overloaded      503 answers with {@code Retry-After} ({@link Outcome#OVERLOADED})
 * @param fiveXx          the runs of 5xx answers ({@link Outcome#SERVER_ERROR} and
 *                        {@link Outcome#GATEWAY_FAILURE}); a success breaks a run
 * @param gatewayFailures the runs of 502, 503, 504 answers and requests with no answer
 *                        ({@link Outcome#GATEWAY_FAILURE}, {@link Outcome#NO_ANSWER}); a success
 *                        or another 5xx breaks a run
 * @param latencyNanos    sum of the requests' latencies
 * @param loadReport      the last {@code endpoint-load-metrics} value seen, or {@code null}
 */
public record Observation(String backendId, int requests, int failures, int successes, int overloaded, Run fiveXx,
                          Run gatewayFailures, long latencyNanos, String loadReport) {

  /** Requests a success rate counts: all but the overloaded, which are neither success nor failure. */
  public int answered() {
    return requests - overloaded;
  }

  /**
   * The consecutive failures of one kind within a period, enough to continue a run from the
   * period before and to see a run that began and ended inside it.
   *
   * <p>Example: failures F, a breaking answer B, over {@code F F B F F F B F} give
   * {@code Run[first=2, longest=3, last=1, broken=true]}; {@code F F F} alone gives
   * {@code Run[3, 3, 3, false]}, which continues the run before it.
   *
   * @param first   failures before the first break (all of them if none)
   * @param longest the longest run inside the period
   * @param last    failures since the last break (all of them if none)
   * @param broken  whether anything broke a run in the period
   */
  public record Run(int first, int longest, int last, boolean broken) {
    /** A period without a failure or a break. */
    public static final Run NONE = new Run(0, 0, 0, false);

    /** A period of {@code n} failures and nothing else. */
    public static Run of(int n) {
      return new Run(n, n, n, false);
    }
  }
}
