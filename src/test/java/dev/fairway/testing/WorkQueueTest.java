package dev.fairway.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class WorkQueueTest {
  private static final long MS = 1_000_000L;

  @Test
  void javadocExample() {
    WorkQueue q = new WorkQueue(1, 1000 * MS, 0);
    assertThat(q.submit(0, 300 * MS)).isEqualTo(300 * MS);
    assertThat(q.submit(100 * MS, 300 * MS)).isEqualTo(600 * MS);
    assertThat(q.utilization(1000 * MS)).isCloseTo(0.6, within(1e-9));
    assertThat(q.rate(1000 * MS)).isCloseTo(2.0, within(1e-9));
  }

  @Test
  void overloadShowsAsFullUtilizationAndAQueue() {
    WorkQueue q = new WorkQueue(1, 1000 * MS, 0);
    for (int i = 0; i < 30; i++) {
      q.submit(i * 50 * MS, 100 * MS); // twice what it can do
    }
    long now = 1500 * MS;
    assertThat(q.utilization(now)).isCloseTo(1.0, within(1e-9));
    assertThat(q.busyNanos(now)).isEqualTo(now);
    assertThat(q.assignedNanos()).isEqualTo(3000 * MS);
    assertThat(q.pending(now)).isEqualTo(15);
  }

  @Test
  void resetDropsQueuedWork() {
    WorkQueue q = new WorkQueue(1, 1000 * MS, 0);
    q.submit(0, 300 * MS);
    q.submit(0, 300 * MS);
    q.reset(450 * MS);
    assertThat(q.busyNanos(2000 * MS)).isEqualTo(450 * MS);
    assertThat(q.pending(450 * MS)).isZero();
    assertThat(q.submit(500 * MS, 100 * MS)).isEqualTo(600 * MS);
  }

  @Test
  void twoWorkersShareTheQueue() {
    WorkQueue q = new WorkQueue(2, 1000 * MS, 0);
    assertThat(q.submit(0, 400 * MS)).isEqualTo(400 * MS);
    assertThat(q.submit(0, 400 * MS)).isEqualTo(400 * MS);
    assertThat(q.submit(0, 400 * MS)).isEqualTo(800 * MS);
    assertThat(q.utilization(1000 * MS)).isCloseTo(0.6, within(1e-9));
  }
}
