package dev.fairway.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.config.FairwayConfig;
import dev.fairway.slots.TableView;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;

/**
 * Starts a real Fairway in-process and checks its slot table.
 *
 * <p>Example: {@code Fairway f = TestFairway.start(vertx, config); ...;
 * TestFairway.assertIdleSoon(f);} fails if any slot is still taken or any request still waits
 * two seconds after the test's traffic ended.
 */
public final class TestFairway {
  private TestFairway() {
  }

  /** Deploys Fairway (proxy and admin on the config's ports, 0 in tests) and waits until it listens. */
  public static Fairway start(Vertx vertx, FairwayConfig config) {
    try {
      return Fairway.start(vertx, config).await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("fairway did not start", e);
    }
  }

  /**
   * Waits up to two seconds for every backend's and service's active count and every service's
   * waiting count to be 0, then asserts it (so a leaked slot fails with the table in the message).
   */
  public static void assertIdleSoon(Fairway fairway) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    TableView view = fairway.slotTable().view();
    while (!idle(view) && System.nanoTime() < deadline) {
      Thread.sleep(10);
      view = fairway.slotTable().view();
    }
    assertThat(view.endpoints().values()).as("backend slots in use: %s", view)
        .allSatisfy(e -> assertThat(e.active()).isZero());
    assertThat(view.services().values()).as("service counts: %s", view).allSatisfy(s -> {
      assertThat(s.active()).isZero();
      assertThat(s.waiting()).isZero();
    });
  }

  private static boolean idle(TableView view) {
    return view.endpoints().values().stream().allMatch(e -> e.active() == 0)
        && view.services().values().stream().allMatch(s -> s.active() == 0 && s.waiting() == 0);
  }
}
