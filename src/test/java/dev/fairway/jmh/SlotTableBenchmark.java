package dev.fairway.jmh;

import dev.fairway.balancer.Endpoint;
import dev.fairway.config.StrategyName;
import dev.fairway.slots.Admission;
import dev.fairway.slots.EndpointSpec;
import dev.fairway.slots.ServiceSlots;
import dev.fairway.slots.ServiceSpec;
import dev.fairway.slots.SlotTable;
import dev.fairway.slots.Waiter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * What one request costs the process-wide {@link SlotTable} (one lock for every event loop), to
 * read beside {@link CasFloorBenchmark}, the floor for any shared counter.
 *
 * <p>Example: {@code bench/jmh.sh 'SlotTable|CasFloor' -t 2 -f 1 -bm avgt -tu ns} runs all three
 * paths from two threads, each thread standing for one event loop:
 * <ul>
 *   <li>{@link #acquireRelease}: the common path. Two backends of capacity 1000 behind one
 *       service, so no request ever waits: {@code acquire} (strategy pick, GRANTED) then
 *       {@code release} (no waiter to hand to).</li>
 *   <li>{@link #acquireQueuedCancel}: the timeout path. Both backends full (capacity 1, held by
 *       two requests taken in setup): {@code acquire} returns QUEUED and {@code cancel} takes the
 *       waiter out again, as {@code Exchange.onWaitTimeout} does.</li>
 *   <li>{@link #releaseHandsToWaiter}: the hand-off path. Each thread owns one service over its own
 *       backend of capacity 1, in the same table (so the lock is shared), and holds its slot: it
 *       queues a new waiter, then releases the held slot, which {@code dispatch} hands straight to
 *       that waiter; the waiter becomes the holder.</li>
 * </ul>
 * A new {@link Waiter} is allocated per operation, as the proxy allocates one {@code Exchange}
 * per request. {@code granted} only records the endpoint (the proxy's does one
 * {@code runOnContext}, which is not measured here).
 */
@Threads(2)
public class SlotTableBenchmark {
  private static final long NOW = 1_000_000_000L;

  /** A waiter that only remembers its grant. */
  static final class BenchWaiter extends Waiter {
    Endpoint grantedTo;

    @Override
    protected void granted(Endpoint endpoint) {
      grantedTo = endpoint;
    }

    @Override
    protected void shed() {
    }
  }

  /** One service over two backends of capacity 1000 each: requests never wait. */
  @State(Scope.Benchmark)
  public static class FreeTable {
    @Param({"round-robin", "slot-queue"})
    public String strategy;

    SlotTable table;
    ServiceSlots service;

    @Setup(Level.Trial)
    public void setUp() {
      table = new SlotTable(1);
      table.apply(List.of(
              new EndpointSpec("b1", "127.0.0.1", 9001, 1000, 1, true),
              new EndpointSpec("b2", "127.0.0.1", 9002, 1000, 1, true)),
          List.of(new ServiceSpec("s", StrategyName.fromConfig(strategy).orElseThrow(), 10_000, 0,
              List.of("b1", "b2"))), NOW);
      service = table.service("s");
    }
  }

  /** One service over two backends of capacity 1, both held: every acquire is QUEUED. */
  @State(Scope.Benchmark)
  public static class FullTable {
    SlotTable table;
    ServiceSlots service;

    @Setup(Level.Trial)
    public void setUp() {
      table = new SlotTable(1);
      table.apply(List.of(
              new EndpointSpec("b1", "127.0.0.1", 9001, 1, 1, true),
              new EndpointSpec("b2", "127.0.0.1", 9002, 1, 1, true)),
          List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 1_000_000, 0, List.of("b1", "b2"))), NOW);
      service = table.service("s");
      for (int i = 0; i < 2; i++) {
        if (table.acquire(service, new BenchWaiter(), NOW) != Admission.GRANTED) {
          throw new IllegalStateException("setup could not fill the table");
        }
      }
    }
  }

  /** One table with a service and a capacity-1 backend per benchmark thread (up to 64). */
  @State(Scope.Benchmark)
  public static class HandOffTable {
    static final int MAX_THREADS = 64;
    SlotTable table;
    final AtomicInteger nextIndex = new AtomicInteger();

    @Setup(Level.Trial)
    public void setUp() {
      table = new SlotTable(1);
      List<EndpointSpec> endpoints = new ArrayList<>();
      List<ServiceSpec> services = new ArrayList<>();
      for (int i = 0; i < MAX_THREADS; i++) {
        endpoints.add(new EndpointSpec("b" + i, "127.0.0.1", 9000 + i, 1, 1, true));
        services.add(new ServiceSpec("s" + i, StrategyName.ROUND_ROBIN, 10, 0, List.of("b" + i)));
      }
      table.apply(endpoints, services, NOW);
      nextIndex.set(0);
    }
  }

  /** A thread's own service in the {@link HandOffTable} and the slot it holds. */
  @State(Scope.Thread)
  public static class HandOffThread {
    ServiceSlots service;
    BenchWaiter holder;

    @Setup(Level.Trial)
    public void setUp(HandOffTable t) {
      int i = t.nextIndex.getAndIncrement();
      if (i >= HandOffTable.MAX_THREADS) {
        throw new IllegalStateException("at most " + HandOffTable.MAX_THREADS + " threads");
      }
      service = t.table.service("s" + i);
      holder = new BenchWaiter();
      if (t.table.acquire(service, holder, NOW) != Admission.GRANTED) {
        throw new IllegalStateException("setup could not take the thread's slot");
      }
    }
  }

  @Benchmark
  public boolean acquireRelease(FreeTable t) {
    BenchWaiter w = new BenchWaiter();
    if (t.table.acquire(t.service, w, NOW) != Admission.GRANTED) {
      throw new IllegalStateException("expected GRANTED");
    }
    return t.table.release(w, NOW, 1000, false);
  }

  @Benchmark
  public boolean acquireQueuedCancel(FullTable t) {
    BenchWaiter w = new BenchWaiter();
    if (t.table.acquire(t.service, w, NOW) != Admission.QUEUED) {
      throw new IllegalStateException("expected QUEUED");
    }
    return t.table.cancel(w);
  }

  @Benchmark
  public Endpoint releaseHandsToWaiter(HandOffTable t, HandOffThread me) {
    BenchWaiter w = new BenchWaiter();
    if (t.table.acquire(me.service, w, NOW) != Admission.QUEUED) {
      throw new IllegalStateException("expected QUEUED");
    }
    t.table.release(me.holder, NOW, 1000, false);
    if (w.grantedTo == null) {
      throw new IllegalStateException("expected the release to hand the slot to the waiter");
    }
    me.holder = w;
    return w.grantedTo;
  }
}
