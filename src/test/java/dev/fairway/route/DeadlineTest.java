package dev.fairway.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** A request's deadline on an injected clock: from {@code grpc-timeout}, what is left, waits cut, the backend's timeout. */
class DeadlineTest {
  private static final long MS = 1_000_000;

  @Test
  void aGrpcTimeoutStartsAtTheRequestsArrival() {
    assertThat(Deadline.of(5 * MS, "100m")).isEqualTo(new Deadline(105 * MS, true));
    assertThat(Deadline.of(5 * MS, null)).isEqualTo(Deadline.NONE);
    assertThat(Deadline.of(5 * MS, "100 m")).as("malformed").isNull();
    assertThat(Deadline.of(5 * MS, "99999999H")).as("beyond 73 years: none").isEqualTo(Deadline.NONE);
  }

  @Test
  void whatIsLeftWaitsCutAndTheBackendsTimeoutAlongTheWay() {
    Deadline d = Deadline.of(0, "100m");
    assertThat(LongStream.of(0, 30, 99, 100, 150).map(t -> d.remainingNanos(t * MS) / MS)).containsExactly(100L, 70L, 1L, 0L, 0L);
    assertThat(LongStream.of(0, 99, 100, 150).mapToObj(t -> d.passed(t * MS))).containsExactly(false, false, true, true);
    assertThat(d.bound(1000 * MS, 30 * MS)).isEqualTo(70 * MS);
    assertThat(d.bound(50 * MS, 30 * MS)).isEqualTo(50 * MS);
    assertThat(d.cuts(1000 * MS, 30 * MS)).isTrue();
    assertThat(d.cuts(50 * MS, 30 * MS)).isFalse();
    assertThat(LongStream.of(0, 30, 99, 100).mapToObj(t -> d.grpcTimeout(t * MS)))
        .containsExactly("100000u", "70000000n", "1000000n", "0n");
  }

  @Test
  void noDeadlineBoundsNothing() {
    assertThat(Deadline.NONE.passed(Long.MAX_VALUE)).isFalse();
    assertThat(Deadline.NONE.remainingNanos(0)).isEqualTo(Long.MAX_VALUE);
    assertThat(Deadline.NONE.bound(1000 * MS, 0)).isEqualTo(1000 * MS);
    assertThat(Deadline.NONE.cuts(1000 * MS, 0)).isFalse();
    assertThat(Deadline.NONE.grpcTimeout(0)).isNull();
  }

  @Test
  void theEarlierOfTwoSourcesWinsAcrossTheClocksWrap() {
    Deadline a = Deadline.after(Long.MAX_VALUE - 10 * MS, 5 * MS);
    Deadline b = Deadline.after(Long.MAX_VALUE - 10 * MS, 50 * MS); // wraps past Long.MAX_VALUE
    assertThat(a.earlier(b)).isEqualTo(a);
    assertThat(b.earlier(a)).isEqualTo(a);
    assertThat(Deadline.NONE.earlier(b)).isEqualTo(b);
    assertThat(b.earlier(Deadline.NONE)).isEqualTo(b);
    assertThat(b.passed(Long.MAX_VALUE)).isFalse();
    assertThat(b.remainingNanos(Long.MAX_VALUE)).isEqualTo(40 * MS);
  }
}
