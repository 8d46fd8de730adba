package dev.fairway.balancer;

/**
 * A tiny portable pseudo-random generator (Steele, Lea and Flood's SplitMix64), so that a seed
 * gives the same sequence on every JVM.
 *
 * <p>Example: {@code new SplitMix64(1234567)} yields {@code 6457827717110365317},
 * {@code 3203168211198807973}, {@code -8629252141511181193} (unsigned {@code 9817491932198370423})
 * as its first three {@link #nextLong()} values, the reference sequence of the algorithm.
 *
 * <p>Not thread-safe.
 */
public final class SplitMix64 {
  private long state;

  public SplitMix64(long seed) {
    this.state = seed;
  }

  /** The next 64 random bits. */
  public long nextLong() {
    long z = (state += 0x9E3779B97F4A7C15L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /**
   * A number in {@code [0, bound)}: the high 32 bits of {@link #nextLong()} times {@code bound},
   * shifted right by 32 (Lemire's multiply-shift; the bias is below {@code bound / 2^32}).
   *
   * @param bound positive upper bound (exclusive)
   */
  public int nextInt(int bound) {
    if (bound <= 0) {
      throw new IllegalArgumentException("bound must be positive: " + bound);
    }
    return (int) (((nextLong() >>> 32) * bound) >>> 32);
  }

  /** A uniform double in {@code [0, 1)} with 53 random bits. */
  public double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }
}
