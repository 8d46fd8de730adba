package dev.fairway.jmh;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The floor for any shared counter: one increment and one decrement of an {@link AtomicInteger}.
 *
 * <p>Example: {@code bench/jmh.sh CasFloor -t 2} measures it from two threads at once.
 */
@State(Scope.Benchmark)
public class CasFloorBenchmark {
  private final AtomicInteger active = new AtomicInteger();

  @Benchmark
  public int incrementDecrement() {
    active.incrementAndGet();
    return active.decrementAndGet();
  }
}
