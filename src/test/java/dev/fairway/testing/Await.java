package dev.fairway.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

/**
 * Polls a condition every 20 ms until it holds, failing the test after ten seconds.
 *
 * <p>Example: {@code Await.until(() -> backend.healthChecks() >= 3);}
 */
public final class Await {
  private static final long LIMIT_S = 10;

  /** A condition that may throw while it is checked. */
  public interface Check {
    boolean holds() throws Exception;
  }

  private Await() {
  }

  /** Returns once {@code check} holds; fails with "condition not met within 10 s" otherwise. */
  public static void until(Check check) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_S);
    while (!check.holds()) {
      assertThat(System.nanoTime()).as("condition not met within %d s", LIMIT_S).isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
