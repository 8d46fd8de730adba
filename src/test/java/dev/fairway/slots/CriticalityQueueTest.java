package dev.fairway.slots;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.Outcome;
import dev.fairway.config.StrategyName;
import dev.fairway.overload.Criticality;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 24: the slot table's wait queue is ordered by criticality and sheds the least important first. */
class CriticalityQueueTest {
  private final SlotTable table = new SlotTable(1);
  private final long now = 1_000_000;
  /** What happened, in order: {@code name=ADMISSION} for an acquire, {@code name:W1} for a grant, {@code -name} for a shed. */
  private final List<String> log = new ArrayList<>();
  /** Every request that {@link #arriveAll} queued. */
  private final List<Req> waiting = new ArrayList<>();

  /** A waiter of the class its name starts with: cp, c, sp or s (a prefix {@code a.} or {@code b.} is skipped). */
  private final class Req extends Waiter {
    final String name;

    Req(String name) {
      this.name = name;
      String n = name.substring(name.indexOf('.') + 1);
      criticality(n.startsWith("cp") ? Criticality.CRITICAL_PLUS : n.startsWith("sp") ? Criticality.SHEDDABLE_PLUS
          : n.startsWith("s") ? Criticality.SHEDDABLE : Criticality.CRITICAL);
    }

    @Override
    protected void granted(Endpoint endpoint) {
      log.add(name + ":" + endpoint.id());
    }

    @Override
    protected void shed() {
      log.add("-" + name);
    }
  }

  /** One backend W1 of capacity 1, one service s with {@code maxWaiting}; the returned holder has W1's slot. */
  private Req oneSlot(int maxWaiting) {
    table.apply(List.of(new EndpointSpec("W1", "h", 1, 1, 1, true)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, maxWaiting, 0, List.of("W1"))), now);
    Req holder = new Req("holder");
    assertThat(table.acquire(table.service("s"), holder, now)).isEqualTo(Admission.GRANTED);
    return holder;
  }

  /** Acquires a slot of {@code service} for each named request, in order, logging the answers. */
  private List<Req> arrive(String service, String... names) {
    List<Req> out = new ArrayList<>();
    for (String n : names) {
      Req r = new Req(n);
      log.add(n + "=" + table.acquire(table.service(service), r, now));
      out.add(r);
    }
    return out;
  }

  /** Releases {@code holder}, then each request as soon as it is granted, until none is; returns the grants in order. */
  private String drain(Req holder) {
    log.clear();
    List<Req> granted = new ArrayList<>(List.of(holder));
    for (int i = 0; i < granted.size(); i++) {
      int before = log.size();
      table.release(granted.get(i), now, 1, false);
      for (String entry : List.copyOf(log.subList(before, log.size()))) {
        String name = entry.substring(0, entry.indexOf(':'));
        waiting.stream().filter(r -> r.name.equals(name)).forEach(granted::add);
      }
    }
    return String.join(" ", log);
  }

  /** {@link #arrive}, remembering the requests in {@link #waiting}; returns the log of their answers. */
  private String arriveAll(String service, String... names) {
    log.clear();
    waiting.addAll(arrive(service, names));
    return String.join(" ", log);
  }

  @Test
  void waitersAreServedMostCriticalFirstAndFirstComeFirstServedWithinAClass() {
    Req holder = oneSlot(10);
    arriveAll("s", "s1", "c1", "sp1", "s2", "cp1", "c2", "sp2", "cp2");
    assertThat(drain(holder)).isEqualTo("cp1:W1 cp2:W1 c1:W1 c2:W1 sp1:W1 sp2:W1 s1:W1 s2:W1");
  }

  @Test
  void aFullQueueShedsTheNewestOfTheLeastImportantClassBelowTheNewcomer() {
    Req holder = oneSlot(3);
    assertThat(arriveAll("s", "s1", "sp1", "s2", "c1", "c2", "sp2", "c3", "c4"))
        .isEqualTo("s1=QUEUED sp1=QUEUED s2=QUEUED -s2 c1=QUEUED -s1 c2=QUEUED sp2=QUEUE_FULL -sp1 c3=QUEUED "
            + "c4=QUEUE_FULL");
    Req shed = waiting.get(0);
    assertThat(table.cancel(shed) + " " + table.service("s").waiting + " " + table.service("s").queued())
        .isEqualTo("false 3 3");
    assertThat(drain(holder)).isEqualTo("c1:W1 c2:W1 c3:W1");
  }

  @Test
  void aNewcomerOfTheLowestClassOrOfTheSameClassAsEveryWaiterIsRefused() {
    oneSlot(2);
    assertThat(arriveAll("s", "sp1", "sp2", "s1", "sp3", "cp1", "cp2", "cp3"))
        .isEqualTo("sp1=QUEUED sp2=QUEUED s1=QUEUE_FULL sp3=QUEUE_FULL -sp2 cp1=QUEUED -sp1 cp2=QUEUED "
            + "cp3=QUEUE_FULL");
  }

  @Test
  void maxWaitingZeroStillMeansNeverWaitWhateverTheClass() {
    oneSlot(0);
    assertThat(arriveAll("s", "s1", "cp1")).isEqualTo("s1=QUEUE_FULL cp1=QUEUE_FULL");
  }

  @Test
  void aWaiterCancelledFromTheMiddleOfItsClassLeavesTheOthersInOrder() {
    Req holder = oneSlot(10);
    arriveAll("s", "c1", "s1", "c2", "c3");
    assertThat(table.cancel(waiting.get(2))).isTrue();
    waiting.remove(2);
    assertThat(drain(holder)).isEqualTo("c1:W1 c3:W1 s1:W1");
  }

  /**
   * A critical retry waits for any backend but W1, where it failed; W1's freed slot goes to the
   * next waiter that may take it (the critical c1 before the sheddable s1), W2's to the retry.
   */
  @Test
  void aRetryStillNeverTakesTheBackendItFailedOn() {
    table.apply(List.of(new EndpointSpec("W1", "h", 1, 1, 1, true), new EndpointSpec("W2", "h", 2, 1, 1, true)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 10, 0, List.of("W1", "W2"))), now);
    ServiceSlots s = table.service("s");
    Req retry = new Req("retry");
    Req h2 = new Req("h2");
    Req h1 = new Req("h1");
    table.acquire(s, retry, now);
    table.acquire(s, h2, now);
    Endpoint w1 = retry.endpoint();
    table.release(retry, now, 200_000_000L, Outcome.NO_ANSWER); // slower than the failure penalty: W1 is free
    table.acquire(s, h1, now);
    log.clear();
    log.add("retry=" + table.acquireExcept(s, retry, now, w1, true));
    waiting.addAll(arrive("s", "s1", "c1"));
    assertThat(String.join(" ", log)).isEqualTo("retry=QUEUED s1=QUEUED c1=QUEUED");
    log.clear();
    table.release(h1, now, 1, false);
    table.release(h2, now, 1, false);
    assertThat(w1.id() + " " + String.join(" ", log)).isEqualTo("W1 c1:W1 retry:W2");
  }

  @Test
  void aRetryThatMustWaitShedsALessImportantWaiterToo() {
    table.apply(List.of(new EndpointSpec("W1", "h", 1, 1, 1, true), new EndpointSpec("W2", "h", 2, 1, 1, true)),
        List.of(new ServiceSpec("s", StrategyName.ROUND_ROBIN, 2, 0, List.of("W1", "W2"))), now);
    ServiceSlots s = table.service("s");
    Req retry = new Req("retry");
    table.acquire(s, retry, now);
    table.acquire(s, new Req("h2"), now);
    table.release(retry, now, 200_000_000L, Outcome.NO_ANSWER);
    table.acquire(s, new Req("h1"), now);
    arriveAll("s", "s1", "s2");
    log.clear();
    log.add("retry=" + table.acquireExcept(s, retry, now, retry.endpoint(), true));
    log.add("s3=" + table.acquireExcept(s, new Req("s3"), now, retry.endpoint(), true));
    assertThat(String.join(" ", log)).isEqualTo("-s2 retry=QUEUED s3=QUEUE_FULL");
  }

  /** Two services share W1: a freed slot goes to the most critical waiter of either, then the older. */
  @Test
  void servicesSharingABackendAreServedByClassThenByArrival() {
    table.apply(List.of(new EndpointSpec("W1", "h", 1, 1, 1, true)),
        List.of(new ServiceSpec("a", StrategyName.ROUND_ROBIN, 10, 0, List.of("W1")),
            new ServiceSpec("b", StrategyName.ROUND_ROBIN, 10, 0, List.of("W1"))), now);
    Req holder = new Req("holder");
    table.acquire(table.service("a"), holder, now);
    arriveAll("a", "a.s1");
    arriveAll("b", "b.c1");
    arriveAll("a", "a.c2");
    arriveAll("b", "b.s2");
    arriveAll("a", "a.cp3");
    assertThat(drain(holder)).isEqualTo("a.cp3:W1 b.c1:W1 a.c2:W1 a.s1:W1 b.s2:W1");
  }
}
