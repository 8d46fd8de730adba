package dev.fairway.slots;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.Outcome;
import dev.fairway.config.StrategyName;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SlotTableTest {
  private final SlotTable table = new SlotTable(1);
  private long now = 1_000_000;

  /** A waiter that records the grants it receives. */
  static final class Rec extends Waiter {
    final String name;
    final List<String> grants = new ArrayList<>();

    Rec(String name) {
      this.name = name;
    }

    @Override
    protected void granted(Endpoint endpoint) {
      grants.add(endpoint.id());
    }

    @Override
    protected void shed() {
      grants.add("shed");
    }
  }

  private void twoWorkers(StrategyName strategy, int maxWaiting, int maxActive) {
    table.apply(List.of(
            new EndpointSpec("W1", "127.0.0.1", 1, 3, 1, true),
            new EndpointSpec("W2", "127.0.0.1", 2, 4, 1, true)),
        List.of(new ServiceSpec("s", strategy, maxWaiting, maxActive, List.of("W1", "W2"))), now);
  }

  private String acquireMany(int n, List<Rec> held) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Rec r = new Rec("r" + i);
      Admission a = table.acquire(table.service("s"), r, now);
      out.add(a == Admission.GRANTED ? r.endpoint().id() : a.name());
      held.add(r);
    }
    return String.join(" ", out);
  }

  @Test
  void slotQueueFollowsSeedZerosFreeSlotQueue() {
    twoWorkers(StrategyName.SLOT_QUEUE, 10, 0);
    List<Rec> held = new ArrayList<>();
    assertThat(acquireMany(7, held)).isEqualTo("W2 W1 W2 W1 W2 W1 W2");
  }

  @Test
  void slotQueueFreedSlotGoesToTheTail() {
    twoWorkers(StrategyName.SLOT_QUEUE, 10, 0);
    var queue = (dev.fairway.balancer.SlotQueue) table.service("s").shared;
    assertThat(queue.describe()).isEqualTo("W2 W1 W2 W1 W2 W1 W2");
    Rec first = new Rec("first");
    table.acquire(table.service("s"), first, now);
    table.release(first, now, 5, false);
    assertThat(queue.describe()).isEqualTo("W1 W2 W1 W2 W1 W2 W2");
  }

  @Test
  void fullTableQueuesThenRejectsBeyondMaxWaiting() {
    twoWorkers(StrategyName.ROUND_ROBIN, 2, 0);
    List<Rec> held = new ArrayList<>();
    assertThat(acquireMany(10, held)).isEqualTo("W1 W2 W1 W2 W1 W2 W2 QUEUED QUEUED QUEUE_FULL");
    assertThat(table.view().services().get("s").waiting()).isEqualTo(2);
  }

  @Test
  void releaseHandsTheSlotToTheOldestWaiterInArrivalOrder() {
    twoWorkers(StrategyName.ROUND_ROBIN, 10, 0);
    List<Rec> held = new ArrayList<>();
    acquireMany(7, held);
    Rec a = new Rec("a");
    Rec b = new Rec("b");
    table.acquire(table.service("s"), a, now);
    table.acquire(table.service("s"), b, now);
    table.release(held.get(1), now, 1, false);
    assertThat(a.grants).containsExactly("W2");
    assertThat(b.grants).isEmpty();
    table.release(held.get(0), now, 1, false);
    assertThat(b.grants).containsExactly("W1");
    assertThat(table.view().endpoints().get("W1").active()).isEqualTo(3);
    assertThat(table.view().services().get("s").waiting()).isZero();
  }

  @Test
  void cancelledWaiterIsSkippedAndItsPlaceFreed() {
    twoWorkers(StrategyName.ROUND_ROBIN, 1, 0);
    List<Rec> held = new ArrayList<>();
    acquireMany(7, held);
    Rec gone = new Rec("gone");
    assertThat(table.acquire(table.service("s"), gone, now)).isEqualTo(Admission.QUEUED);
    assertThat(table.cancel(gone)).isTrue();
    Rec next = new Rec("next");
    assertThat(table.acquire(table.service("s"), next, now)).isEqualTo(Admission.QUEUED);
    table.release(held.get(0), now, 1, false);
    assertThat(gone.grants).isEmpty();
    assertThat(next.grants).containsExactly("W1");
  }

  @Test
  void grantAndTimeoutAtTheSameInstantResolveToExactlyOne() {
    twoWorkers(StrategyName.ROUND_ROBIN, 10, 0);
    List<Rec> held = new ArrayList<>();
    acquireMany(7, held);
    Rec w = new Rec("w");
    table.acquire(table.service("s"), w, now);
    table.release(held.get(0), now, 1, false);
    assertThat(table.cancel(w)).as("timeout after grant must not cancel").isFalse();
    assertThat(w.grants).containsExactly("W1");
    assertThat(table.release(w, now, 1, false)).isTrue();
    assertThat(table.view().endpoints().get("W1").active()).isEqualTo(2);
  }

  @Test
  void cancelledWaitersLeaveTheQueueAtOnce() {
    table.apply(List.of(new EndpointSpec("W1", "h", 1, 1, 1, true)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 10, 0, List.of("W1"))), now);
    Rec holder = new Rec("holder");
    table.acquire(table.service("s"), holder, now);
    Rec live = new Rec("live");
    table.acquire(table.service("s"), live, now);
    for (int i = 0; i < 1000; i++) {
      Rec gone = new Rec("gone" + i);
      assertThat(table.acquire(table.service("s"), gone, now)).isEqualTo(Admission.QUEUED);
      assertThat(table.cancel(gone)).isTrue();
    }
    assertThat(table.service("s").queued()).isEqualTo(1);
    table.release(holder, now, 1, false);
    assertThat(live.grants).containsExactly("W1");
    assertThat(table.service("s").queued()).isZero();
  }

  @Test
  void timeoutBeforeGrantLeavesTheSlotFree() {
    twoWorkers(StrategyName.ROUND_ROBIN, 10, 0);
    List<Rec> held = new ArrayList<>();
    acquireMany(7, held);
    Rec w = new Rec("w");
    table.acquire(table.service("s"), w, now);
    assertThat(table.cancel(w)).isTrue();
    table.release(held.get(0), now, 1, false);
    assertThat(w.grants).isEmpty();
    assertThat(table.view().endpoints().get("W1").active()).isEqualTo(2);
  }

  @Test
  void releaseIsIdempotent() {
    twoWorkers(StrategyName.ROUND_ROBIN, 10, 0);
    Rec r = new Rec("r");
    table.acquire(table.service("s"), r, now);
    assertThat(table.release(r, now, 1, false)).isTrue();
    assertThat(table.release(r, now, 1, false)).isFalse();
    assertThat(table.view().endpoints().get("W1").active()).isZero();
  }

  @Test
  void raceOfGrantsCancelsAndLockFreeTakesFromTwoLanesLosesNoSlot() throws Exception {
    SlotTable shared = new SlotTable(1, 2);
    shared.apply(List.of(new EndpointSpec("W1", "h", 1, 2, 1, true), new EndpointSpec("W2", "h", 2, 1, 1, true)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 100_000, 0, List.of("W1", "W2"))), now);
    int perThread = 50_000;
    AtomicInteger overCapacity = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int lane = 0; lane < 2; lane++) {
      int myLane = lane;
      threads.add(new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        for (int i = 0; i < perThread; i++) {
          Waiter w = new Waiter() {
            @Override
            protected void granted(Endpoint endpoint) {
            }

            @Override
            protected void shed() {
            }
          };
          Admission a = shared.acquire(shared.service("s"), w, i, myLane);
          if (a == Admission.QUEUED && shared.cancel(w)) {
            continue;
          }
          if (w.endpoint().active() > w.endpoint().capacity()) {
            overCapacity.incrementAndGet();
          }
          shared.release(w, i, 1, false);
        }
      }));
    }
    threads.forEach(Thread::start);
    start.countDown();
    for (Thread t : threads) {
      t.join(30_000);
    }
    assertThat(overCapacity.get()).isZero();
    assertThat(shared.view().endpoints().get("W1").active()).isZero();
    assertThat(shared.view().endpoints().get("W2").active()).isZero();
    assertThat(shared.view().services().get("s").waiting()).isZero();
    assertThat(shared.view().services().get("s").active()).isZero();
  }

  @Test
  void serviceCapHoldsWhileThePoolHasRoom() {
    table.apply(List.of(new EndpointSpec("P", "h", 1, 50, 1, true)),
        List.of(new ServiceSpec("import", StrategyName.ROUND_ROBIN, 10, 5, List.of("P")),
            new ServiceSpec("translate", StrategyName.ROUND_ROBIN, 10, 0, List.of("P"))), now);
    List<String> imports = new ArrayList<>();
    List<Rec> held = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      Rec r = new Rec("i" + i);
      imports.add(table.acquire(table.service("import"), r, now).name());
      held.add(r);
    }
    assertThat(String.join(" ", imports)).isEqualTo("GRANTED GRANTED GRANTED GRANTED GRANTED QUEUED QUEUED");
    for (int i = 0; i < 45; i++) {
      assertThat(table.acquire(table.service("translate"), new Rec("t" + i), now)).isEqualTo(Admission.GRANTED);
    }
    assertThat(table.acquire(table.service("translate"), new Rec("t45"), now)).isEqualTo(Admission.QUEUED);
    table.release(held.get(0), now, 1, false);
    assertThat(held.get(5).grants).as("oldest waiter across both services gets the freed slot").containsExactly("P");
    assertThat(table.view().endpoints().get("P").active()).isEqualTo(50);
  }

  @Test
  void sharedBackendHasOneCapacityAcrossServices() {
    table.apply(List.of(new EndpointSpec("P", "h", 1, 3, 1, true)),
        List.of(new ServiceSpec("a", StrategyName.ROUND_ROBIN, 0, 0, List.of("P")),
            new ServiceSpec("b", StrategyName.ROUND_ROBIN, 0, 0, List.of("P"))), now);
    String seq = List.of("a", "b", "a", "b").stream()
        .map(s -> table.acquire(table.service(s), new Rec(s), now).name())
        .collect(Collectors.joining(" "));
    assertThat(seq).isEqualTo("GRANTED GRANTED GRANTED QUEUE_FULL");
  }

  @Test
  void capacityChangeTakesEffectAtOnceWithoutDroppingActive() {
    twoWorkers(StrategyName.ROUND_ROBIN, 10, 0);
    List<Rec> held = new ArrayList<>();
    acquireMany(7, held);
    Rec w = new Rec("w");
    table.acquire(table.service("s"), w, now);
    table.apply(List.of(new EndpointSpec("W1", "127.0.0.1", 1, 4, 1, true),
            new EndpointSpec("W2", "127.0.0.1", 2, 2, 1, true)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 10, 0, List.of("W1", "W2"))), now);
    assertThat(w.grants).as("raised capacity serves the waiter").containsExactly("W1");
    assertThat(table.view().endpoints().get("W2").active()).as("lowered: in flight kept").isEqualTo(4);
    table.release(held.get(1), now, 1, false);
    Rec x = new Rec("x");
    assertThat(table.acquire(table.service("s"), x, now)).as("W2 still above its new cap").isEqualTo(Admission.QUEUED);
  }

  @Test
  void noAvailableBackendIsRejectedNotQueued() {
    table.apply(List.of(new EndpointSpec("W1", "h", 1, 3, 1, false)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 10, 0, List.of("W1"))), now);
    assertThat(table.acquire(table.service("s"), new Rec("r"), now)).isEqualTo(Admission.NO_BACKEND);
  }

  @Test
  void lameDuckBackendKeepsItsActiveButGetsNoNewGrants() {
    twoWorkers(StrategyName.ROUND_ROBIN, 10, 0);
    List<Rec> held = new ArrayList<>();
    acquireMany(2, held);
    table.apply(List.of(new EndpointSpec("W1", "127.0.0.1", 1, 3, 1, false),
            new EndpointSpec("W2", "127.0.0.1", 2, 4, 1, true)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 10, 0, List.of("W1", "W2"))), now);
    assertThat(acquireMany(4, held)).isEqualTo("W2 W2 W2 QUEUED");
    assertThat(table.view().endpoints().get("W1").active()).isEqualTo(1);
  }

  @Test
  void retryExcludesTheBackendThatFailed() {
    twoWorkers(StrategyName.ROUND_ROBIN, 10, 0);
    Rec r = new Rec("r");
    table.acquire(table.service("s"), r, now);
    Endpoint failed = r.endpoint();
    table.release(r, now, 1, true);
    assertThat(table.acquireExcept(table.service("s"), r, now, failed, false)).isEqualTo(Admission.GRANTED);
    assertThat(r.endpoint().id()).isEqualTo("W2");
  }

  /**
   * Issue 21 item 9: a retry after a failed connect waits for a slot on another backend; a slot of
   * the backend it failed on goes to the next request instead.
   */
  @Test
  void aRetryWaitsForAnotherBackendAndLeavesTheFailedOnesSlotsToOthers() {
    twoWorkers(StrategyName.ROUND_ROBIN, 10, 0);
    List<Rec> held = new ArrayList<>();
    assertThat(acquireMany(7, held)).isEqualTo("W1 W2 W1 W2 W1 W2 W2");
    Rec retry = held.get(0);
    Endpoint w1 = retry.endpoint();
    table.release(retry, now, 200_000_000L, Outcome.NO_ANSWER); // slower than the penalty: W1's slot is free
    ServiceSlots s = table.service("s");
    assertThat(table.acquireExcept(s, retry, now, w1, false)).isEqualTo(Admission.NO_BACKEND);
    assertThat(table.acquireExcept(s, retry, now, w1, true)).isEqualTo(Admission.QUEUED);
    Rec next = new Rec("next");
    Rec later = new Rec("later");
    assertThat(table.acquire(s, next, now) + " " + next.endpoint().id() + " " + table.acquire(s, later, now))
        .isEqualTo("GRANTED W1 QUEUED");
    table.release(next, now, 1, false); // W1 again: skips the retry
    table.release(held.get(1), now, 1, false); // W2: the retry's
    assertThat(retry.grants + " " + later.grants + " " + s.waiting).isEqualTo("[W2] [W1] 0");
  }

  /** Slot-queue tracks free slots itself: a slot its pick gave that a retry could not use is not lost. */
  @Test
  void aRetryUnderSlotQueueLosesNoFreeSlot() {
    twoWorkers(StrategyName.SLOT_QUEUE, 10, 0);
    List<Rec> held = new ArrayList<>();
    acquireMany(7, held);
    Rec retry = held.get(0);
    Endpoint failed = retry.endpoint();
    table.release(retry, now, 200_000_000L, Outcome.NO_ANSWER);
    ServiceSlots s = table.service("s");
    assertThat(table.acquireExcept(s, retry, now, failed, true)).isEqualTo(Admission.QUEUED);
    Rec next = new Rec("next");
    table.acquire(s, next, now);
    table.release(next, now, 1, false); // a slot of the failed backend, which no waiter can use
    Rec other = held.stream().filter(r -> r.endpoint() != failed).findFirst().orElseThrow();
    table.release(other, now, 1, false);
    assertThat(retry.grants).containsExactly(other.endpoint().id());
    held.remove(retry);
    held.forEach(r -> table.release(r, now, 1, false));
    table.release(retry, now, 1, false);
    assertThat(acquireMany(7, new ArrayList<>()).split(" ")).doesNotContain("QUEUED").hasSize(7);
  }

  @Test
  void aRetryHasNoBackendWhenTheFailedOneIsTheOnlyMember() {
    table.apply(List.of(new EndpointSpec("W1", "127.0.0.1", 1, 1, 1, true)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 10, 0, List.of("W1"))), now);
    Rec r = new Rec("r");
    table.acquire(table.service("s"), r, now);
    table.release(r, now, 200_000_000L, Outcome.NO_ANSWER);
    assertThat(table.acquireExcept(table.service("s"), r, now, r.endpoint(), true)).isEqualTo(Admission.NO_BACKEND);
    assertThat(table.service("s").waiting).isZero();
  }

  @Test
  void aWeightChangeShowsOnTheNextPickOfItsOwnTableOnly() {
    SlotTable other = new SlotTable(1);
    List<EndpointSpec> same = List.of(new EndpointSpec("W1", "127.0.0.1", 1, 100, 1, true),
        new EndpointSpec("W2", "127.0.0.1", 2, 100, 2, true));
    List<ServiceSpec> wrr = List.of(new ServiceSpec("s", StrategyName.WEIGHTED_ROUND_ROBIN, 10, 0,
        List.of("W1", "W2")));
    table.apply(same, wrr, now);
    other.apply(same, wrr, now);
    assertThat(picks(table, 3) + " | " + picks(other, 3)).isEqualTo("W2 W1 W2 | W2 W1 W2");
    table.updateWeights(java.util.Map.of("W1", 4.0));
    assertThat(picks(table, 5) + " | " + picks(other, 3)).isEqualTo("W1 W1 W2 W1 W1 | W2 W1 W2");
  }

  /** {@code n} grants released at once, as ids. */
  private String picks(SlotTable t, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Rec r = new Rec("p" + i);
      t.acquire(t.service("s"), r, now);
      out.add(r.endpoint().id());
      t.release(r, now, 0, false);
    }
    return String.join(" ", out);
  }

  /** Issue 21 item 3: each lane's power-of-two picks come from a random sequence of its own. */
  @Test
  void p2cLanesDrawRandomSequencesOfTheirOwn() {
    SlotTable lanes = new SlotTable(7, 2);
    List<EndpointSpec> four = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      four.add(new EndpointSpec("W" + i, "h", i, 100, 1, true));
    }
    lanes.apply(four, List.of(new ServiceSpec("s", StrategyName.P2C_PEAK_EWMA, 10, 0, List.of("W1", "W2", "W3", "W4"))),
        now);
    List<String> perLane = new ArrayList<>();
    for (int lane = 0; lane < 2; lane++) {
      List<String> picks = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        Rec r = new Rec("r" + i);
        lanes.acquire(lanes.service("s"), r, now, lane);
        picks.add(r.endpoint().id());
        lanes.release(r, now, 1_000_000, false);
      }
      perLane.add(String.join(" ", picks));
    }
    assertThat(perLane.get(1)).isNotEqualTo(perLane.get(0));
  }
}
