package dev.fairway.overload;

import static dev.fairway.overload.ThrottleSimulation.MS;
import static dev.fairway.overload.ThrottleSimulation.S;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RetryBudgetTest {
  private static final long WINDOW = RetryBudget.WINDOW_NANOS;

  private static String retries(RetryBudget b, int count, long now) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < count; i++) {
      s.append(b.tryRetry(now) ? '+' : '-');
    }
    return s.toString();
  }

  private static void requests(RetryBudget b, int count, long now) {
    for (int i = 0; i < count; i++) {
      b.request(now);
    }
  }

  @Test
  void theJavadocExampleReservePlusTenPercent() {
    RetryBudget b = new RetryBudget(10, 0.5, WINDOW);
    assertThat(b.available(0)).isEqualTo(5.0);
    requests(b, 20, 0);
    assertThat(b.available(0)).isEqualTo(7.0);
    assertThat(retries(b, 8, 0)).isEqualTo("+++++++-");
    assertThat(b.available(0)).isEqualTo(0.0);
  }

  @Test
  void tenPercentWithoutReserveOneRetryPerTenRequests() {
    RetryBudget b = new RetryBudget(10, 0, WINDOW);
    StringBuilder s = new StringBuilder();
    for (int i = 1; i <= 30; i++) {
      b.request(i * MS);
      s.append(b.tryRetry(i * MS) ? '+' : '-');
    }
    assertThat(s.toString()).isEqualTo("---------+---------+---------+");
  }

  @Test
  void requestsAndRetriesLeaveTheWindow() {
    RetryBudget b = new RetryBudget(50, 0, WINDOW);
    requests(b, 6, 0);
    assertThat(retries(b, 1, 0)).isEqualTo("+");
    assertThat(retries(b, 3, 3 * S)).isEqualTo("++-");
    // 0.5 s buckets: what happened at 0 leaves at 10 s (requests worth 3, one retry), at 3 s at 13 s
    StringBuilder s = new StringBuilder();
    for (long at : new long[] {9_999 * MS, 10 * S, 12_999 * MS, 13 * S}) {
      s.append(b.available(at)).append(' ');
    }
    assertThat(s.toString()).isEqualTo("0.0 -2.0 -2.0 0.0 ");
  }

  @Test
  void zeroBudgetNeverRetries() {
    RetryBudget b = new RetryBudget(0, 0, WINDOW);
    requests(b, 1000, 0);
    assertThat(retries(b, 3, 0)).isEqualTo("---");
  }

  @Test
  void negativeOrNonFiniteSettingsAreRefused() {
    assertThatThrownBy(() -> new RetryBudget(-1, 3, WINDOW)).hasMessageContaining("-1.0, 3.0");
    assertThatThrownBy(() -> new RetryBudget(10, Double.NaN, WINDOW)).hasMessageContaining("NaN");
    assertThatThrownBy(() -> new RetryBudget(Double.POSITIVE_INFINITY, 0, WINDOW)).hasMessageContaining("Infinity");
  }
}
