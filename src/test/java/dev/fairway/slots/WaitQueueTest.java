package dev.fairway.slots;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.balancer.Endpoint;
import dev.fairway.overload.Criticality;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WaitQueueTest {
  private final WaitQueue queue = new WaitQueue();
  private final Map<String, Waiter> byName = new LinkedHashMap<>();

  /** A waiter named {@code name}, of the class its name starts with: cp, c, sp or s. */
  private Waiter add(String name) {
    Waiter w = new Waiter() {
      @Override
      protected void granted(Endpoint endpoint) {
      }

      @Override
      protected void shed() {
      }

      @Override
      public String toString() {
        return name;
      }
    };
    w.criticality(name.startsWith("cp") ? Criticality.CRITICAL_PLUS : name.startsWith("sp")
        ? Criticality.SHEDDABLE_PLUS : name.startsWith("s") ? Criticality.SHEDDABLE : Criticality.CRITICAL);
    w.seq = byName.size();
    byName.put(name, w);
    queue.add(w);
    return w;
  }

  /** The queue in serving order, then its size. */
  private String order() {
    List<String> out = new ArrayList<>();
    for (Waiter w = queue.head(); w != null; w = queue.after(w)) {
      out.add(w.toString());
    }
    return String.join(" ", out) + " (" + queue.size() + ")";
  }

  /** Whom {@link WaitQueue#newestBelow} names for a newcomer of each class, most important first. */
  private String victims() {
    List<String> out = new ArrayList<>();
    for (Criticality c : Criticality.ALL) {
      out.add(String.valueOf(queue.newestBelow(c)));
    }
    return String.join(" ", out);
  }

  @Test
  void servesTheMostImportantClassFirstAndFifoWithinAClass() {
    for (String n : List.of("s1", "c1", "sp1", "s2", "cp1", "c2", "sp2", "cp2")) {
      add(n);
    }
    assertThat(order()).isEqualTo("cp1 cp2 c1 c2 sp1 sp2 s1 s2 (8)");
  }

  @Test
  void aNewcomerMayDisplaceOnlyTheNewestOfTheLeastImportantClassBelowIt() {
    add("s1");
    add("sp1");
    add("s2");
    add("c1");
    assertThat(victims()).isEqualTo("s2 s2 s2 null");
    queue.remove(byName.get("s2"));
    queue.remove(byName.get("s1"));
    assertThat(victims()).isEqualTo("sp1 sp1 null null");
    queue.remove(byName.get("sp1"));
    assertThat(victims()).isEqualTo("c1 null null null");
  }

  @Test
  void removesFromTheHeadTheMiddleAndTheTailOfAClass() {
    for (String n : List.of("c1", "c2", "c3", "c4", "s1")) {
      add(n);
    }
    queue.remove(byName.get("c2"));
    assertThat(order()).isEqualTo("c1 c3 c4 s1 (4)");
    queue.remove(byName.get("c1"));
    queue.remove(byName.get("c4"));
    assertThat(order()).isEqualTo("c3 s1 (2)");
    queue.remove(byName.get("c3"));
    add("c5");
    assertThat(order()).isEqualTo("c5 s1 (2)");
  }

  @Test
  void aWaiterLeavesTheClassItWasFiledUnderEvenIfItsCriticalityChanged() {
    Waiter c1 = add("c1");
    add("s1");
    c1.criticality(Criticality.SHEDDABLE);
    queue.remove(c1);
    assertThat(order()).isEqualTo("s1 (1)");
  }

  @Test
  void acrossQueuesTheMoreImportantClassIsServedFirstThenTheOlder() {
    Waiter s1 = add("s1");
    Waiter c1 = add("c1");
    Waiter c2 = add("c2");
    assertThat(WaitQueue.servedBefore(c1, s1) + " " + WaitQueue.servedBefore(s1, c1) + " "
        + WaitQueue.servedBefore(c1, c2) + " " + WaitQueue.servedBefore(c2, c1)).isEqualTo("true false true false");
  }
}
