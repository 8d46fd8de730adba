package dev.fairway.grpc;

/**
 * The {@code grpc-timeout} header's format (gRPC over HTTP/2, "Requests"): 1 to 8 ASCII digits and
 * a unit, {@code H} hours, {@code M} minutes, {@code S} seconds, {@code m} milliseconds, {@code u}
 * microseconds, {@code n} nanoseconds.
 *
 * <p>Example: {@code parse("100m")} is 100,000,000 ns; {@code parse("1x")} is {@link #MALFORMED};
 * {@code encode(100_000_000)} is {@code "100000u"} (100,000,000 ns has nine digits, so the next
 * unit up), and {@code encode(99_000_000)} is {@code "99000000n"}.
 */
public final class GrpcTimeout {
  /** What {@link #parse} returns for a value that is not in the format. */
  public static final long MALFORMED = -1;
  private static final int MAX_DIGITS = 8;
  private static final long MAX_VALUE = 99_999_999;
  /** The units from finest to coarsest, and their length in nanoseconds. */
  private static final char[] UNITS = {'n', 'u', 'm', 'S', 'M', 'H'};
  private static final long[] NANOS = {1, 1_000, 1_000_000, 1_000_000_000, 60_000_000_000L, 3_600_000_000_000L};

  private GrpcTimeout() {
  }

  /**
   * The timeout in nanoseconds, {@link Long#MAX_VALUE} if it does not fit a {@code long} (over
   * 292 years), or {@link #MALFORMED}.
   */
  public static long parse(CharSequence value) {
    int n = value.length();
    if (n < 2 || n > MAX_DIGITS + 1) {
      return MALFORMED;
    }
    long digits = 0;
    for (int i = 0; i < n - 1; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return MALFORMED;
      }
      digits = digits * 10 + (c - '0');
    }
    long unit = unitNanos(value.charAt(n - 1));
    if (unit == 0) {
      return MALFORMED;
    }
    return digits > Long.MAX_VALUE / unit ? Long.MAX_VALUE : digits * unit;
  }

  private static long unitNanos(char unit) {
    for (int i = 0; i < UNITS.length; i++) {
      if (UNITS[i] == unit) {
        return NANOS[i];
      }
    }
    return 0;
  }

  /**
   * {@code nanos} in the format, in the finest unit whose value fits in eight digits, rounded down
   * (a forwarded timeout never grows); negative values encode as {@code "0n"}.
   */
  public static String encode(long nanos) {
    long t = Math.max(0, nanos);
    for (int i = 0; i < UNITS.length; i++) {
      long v = t / NANOS[i];
      if (v <= MAX_VALUE) {
        return Long.toString(v) + UNITS[i];
      }
    }
    return MAX_VALUE + "H";
  }
}
