package dev.fairway.jmh;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.Strategies;
import dev.fairway.balancer.Strategy;
import dev.fairway.balancer.WeightEpoch;
import dev.fairway.config.StrategyName;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One pick of each strategy plus the completion that keeps the table steady, as the slot table
 * calls them (under its lock, here on one thread).
 *
 * <p>Example: {@code bench/jmh.sh StrategyPick -f 1 -wi 2 -i 3 -w 1 -r 1 -p endpoints=100}. Each
 * operation picks a backend (active + 1) and completes the oldest of {@code endpoints} requests
 * in flight (active − 1, {@code onComplete}, {@code onSlotFreed}), so on average every backend has
 * one request of its capacity of 4 in flight; latencies vary from 5 to 12 µs and one request in 64
 * fails; the clock advances 1 µs per operation; weights are 1, 2 and 3 in turn.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class StrategyPickBenchmark {
  @Param({"round-robin", "least-loaded", "weighted-round-robin", "slot-queue", "fair-share",
      "interleaved-weighted-round-robin", "p2c-peak-ewma"})
  public String strategy;

  @Param({"10", "100", "10000"})
  public int endpoints;

  private Strategy s;
  private List<Endpoint> members;
  private Endpoint[] inFlight;
  private int head;
  private long now;
  private int count;

  @Setup
  public void setUp() {
    List<Endpoint> list = new ArrayList<>(endpoints);
    WeightEpoch epoch = new WeightEpoch();
    for (int i = 0; i < endpoints; i++) {
      Endpoint e = new Endpoint("b" + i, "127.0.0.1", 10_000 + i, epoch);
      e.setCapacity(4);
      e.setWeight(1 + i % 3);
      list.add(e);
    }
    members = List.copyOf(list);
    s = Strategies.create(StrategyName.fromConfig(strategy).orElseThrow(), 42);
    s.reset(members);
    inFlight = new Endpoint[endpoints];
    for (int i = 0; i < endpoints; i++) {
      Endpoint e = s.pick(members, now);
      e.setActive(e.active() + 1);
      inFlight[i] = e;
    }
  }

  @Benchmark
  public Endpoint pickAndComplete() {
    now += 1_000;
    int c = ++count;
    Endpoint old = inFlight[head];
    Endpoint e = s.pick(members, now);
    if (e != null) {
      e.setActive(e.active() + 1);
      inFlight[head] = e;
    }
    old.setActive(old.active() - 1);
    s.onComplete(old, 5_000 + (c & 7) * 1_000, (c & 63) == 0, now);
    s.onSlotFreed(old);
    if (e == null) {
      inFlight[head] = s.pick(members, now);
      inFlight[head].setActive(inFlight[head].active() + 1);
    }
    head = head + 1 == inFlight.length ? 0 : head + 1;
    return e;
  }
}
