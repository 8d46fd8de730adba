package dev.fairway.overload;

import java.util.SplittableRandom;

/**
 * One service's traffic through an {@link AdaptiveThrottle} on a fake clock: 100 requests a second,
 * answered at once by a backend that accepts up to {@code capacityPerSecond} of them in each second
 * and answers the rest with an overload signal.
 */
final class ThrottleSimulation {
  static final long MS = 1_000_000L;
  static final long S = 1_000 * MS;
  private static final long STEP = 10 * MS;

  private final AdaptiveThrottle throttle;
  private final SplittableRandom random;
  private long now;
  private long second = -1;
  private int acceptedThisSecond;

  ThrottleSimulation(AdaptiveThrottle throttle, long seed) {
    this.throttle = throttle;
    this.random = new SplittableRandom(seed);
  }

  long now() {
    return now;
  }

  /**
   * Runs {@code nanos} of traffic against a backend of the given capacity.
   *
   * @return the requests, attempts and accepts of the last full second, and the time of the last
   *     refusal (-1 if none), relative to the start of this run
   */
  Run run(long nanos, int capacityPerSecond) {
    long start = now;
    long lastRefusal = -1;
    int requests = 0;
    int attempts = 0;
    int accepts = 0;
    for (long end = now + nanos; now < end; now += STEP) {
      if (now / S != second) {
        second = now / S;
        acceptedThisSecond = 0;
      }
      boolean lastSecond = now >= end - S;
      requests += lastSecond ? 1 : 0;
      if (!throttle.admit(Criticality.CRITICAL, now, random.nextDouble())) {
        lastRefusal = now - start;
        continue;
      }
      attempts += lastSecond ? 1 : 0;
      if (acceptedThisSecond < capacityPerSecond) {
        acceptedThisSecond++;
        accepts += lastSecond ? 1 : 0;
        throttle.accepted(now);
      }
    }
    return new Run(requests, attempts, accepts, lastRefusal);
  }

  record Run(int requests, int attempts, int accepts, long lastRefusalNanos) {
  }
}
