package dev.fairway.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class IdleStackTest {
  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;

  /** A connection by name; dead ones are closed by the sweep wherever they are at the front. */
  static final class Conn implements IdleStack.Member {
    final String name;
    long since;
    boolean dead;

    Conn(String name) {
      this.name = name;
    }

    @Override
    public long idleSince() {
      return since;
    }

    @Override
    public void idleSince(long nanos) {
      since = nanos;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private final IdleStack<Conn> stack = new IdleStack<>(2 * S, 4 * S, 30 * S, 0);
  private final List<Conn> closed = new ArrayList<>();

  private void sweep(long now) {
    stack.sweep(now, c -> c.dead, closed::add);
  }

  private String polls(int n, long now) {
    return IntStream.range(0, n).mapToObj(i -> String.valueOf(stack.poll(now))).collect(Collectors.joining(" "));
  }

  @Test
  void theNewestFirstWhileNoneIsStale() {
    stack.offer(new Conn("A"), 0);
    stack.offer(new Conn("B"), 100 * MS);
    stack.offer(new Conn("C"), 200 * MS);
    assertThat(polls(4, 1900 * MS)).isEqualTo("C B A null");
  }

  @Test
  void oneIdleForTheRefreshTimeGoesFirst() {
    stack.offer(new Conn("A"), 0);
    stack.offer(new Conn("B"), 1 * S);
    stack.offer(new Conn("C"), 1500 * MS);
    assertThat(polls(1, 1800 * MS)).isEqualTo("C");
    assertThat(polls(3, 2500 * MS)).isEqualTo("A B null");
  }

  @Test
  void aWanderingDemandKeepsEveryConnection() {
    for (String n : List.of("A", "B", "C", "D")) {
      stack.offer(new Conn(n), 0);
    }
    // Every 100 ms two are taken and given back; every 10 s, for 200 ms, all four are.
    for (long t = 100 * MS; t <= 70 * S; t += 100 * MS) {
      int n = t % (10 * S) < 200 * MS ? 4 : 2;
      List<Conn> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        out.add(stack.poll(t));
      }
      long back = t + 10 * MS;
      out.forEach(c -> stack.offer(c, back));
      if (t % (500 * MS) == 0) {
        sweep(t);
      }
    }
    assertThat(closed).isEmpty();
  }

  @Test
  void aConnectionUnusedForTheExpiryIsClosed() {
    stack.offer(new Conn("A"), 0);
    stack.offer(new Conn("B"), 3 * S);
    sweep(3900 * MS);
    assertThat(closed).isEmpty();
    sweep(4 * S);
    assertThat(closed).hasToString("[A]");
    assertThat(polls(2, 4 * S)).isEqualTo("B null");
  }

  @Test
  void deadOnesAtTheFrontAreClosedAtOnce() {
    Conn a = new Conn("A");
    stack.offer(a, 0);
    stack.offer(new Conn("B"), 1 * MS);
    a.dead = true;
    sweep(2 * MS);
    assertThat(closed).hasToString("[A]");
  }

  @Test
  void atAWindowsEndTheConnectionsItNeverNeededAreClosed() {
    for (String n : List.of("A", "B", "C", "D")) {
      stack.offer(new Conn(n), 0);
    }
    // Every second two are taken at once and given back: two of the four are never needed.
    for (long t = S; t < 61 * S; t += S) {
      Conn x = stack.poll(t);
      Conn y = stack.poll(t);
      stack.offer(y, t + 10 * MS);
      stack.offer(x, t + 10 * MS);
      sweep(t + 500 * MS);
      if (t == 30 * S) {
        assertThat(closed).as("the first window began empty: nothing in it was surplus").isEmpty();
      }
    }
    assertThat(closed).as("at the end of the second window").hasSize(2);
    assertThat(polls(3, 61 * S)).matches("[ABCD] [ABCD] null");
  }
}
