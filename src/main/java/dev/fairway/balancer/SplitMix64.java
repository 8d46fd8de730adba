package dev.fairway.balancer;

/**
 * A small, portable pseudo-random generator (Steele, Lea and Flood's SplitMix64), so that every
 * JVM draws the same sequence from the same seed.
 *
 * <p>Example: {@code new SplitMix64(0).nextLong()} is {@code 0xE220A8397B1DCDAFL} on every JVM,
 * and {@code nextInt(10)} then always yields the same digits, which is what makes subsets and
 * randomized strategies reproducible across proxies and test runs.
 *
 * <p>Not thread-safe; not for cryptography.
 */
public final class SplitMix64 {
  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

  private long state;

  public SplitMix64(long seed) {
    this.state = seed;
  }

  /** The next 64 uniformly distributed bits. */
  public long nextLong() {
    long z = (state += GOLDEN_GAMMA);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /**
   * A uniform int in {@code [0, bound)}, without modulo bias (rejects the incomplete top range).
   *
   * @param bound exclusive upper bound, at least 1
   */
  public int nextInt(int bound) {
    if (bound <= 0) {
      throw new IllegalArgumentException("bound must be positive: " + bound);
    }
    while (true) {
      int bits = (int) (nextLong() >>> 33);
      int value = bits % bound;
      if (bits - value + (bound - 1) >= 0) {
        return value;
      }
    }
  }

  /** A uniform double in {@code [0, 1)} with 53 random bits. */
  public double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }
}
