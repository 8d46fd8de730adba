package dev.fairway.testing;

import java.util.Locale;

/**
 * The ORCA header the spread backends send, in one place for the real backend and the
 * simulation.
 *
 * <p>Example: {@code header(0.5, 45.25)} is
 * {@code TEXT cpu_utilization=0.5000, rps_fractional=45.250}.
 */
public final class SpreadReport {
  /** The header name. */
  public static final String NAME = "endpoint-load-metrics";

  private SpreadReport() {
  }

  /** The header value for a utilization (busy / wall) and a rate (completions per second). */
  public static String header(double utilization, double rate) {
    return String.format(Locale.ROOT, "TEXT cpu_utilization=%.4f, rps_fractional=%.3f", utilization, rate);
  }
}
