package dev.fairway.config;

import dev.fairway.overload.Criticality;
import java.util.EnumMap;
import java.util.Map;

/**
 * Reads and validates a service's {@code slots} object, recording each problem on the
 * {@link Node} with its JSON path. {@code waitTimeoutMs} is one number for every criticality or
 * an object with a {@code default} and a wait per class.
 *
 * <p>Example: {@code {"waitTimeoutMs": {"default": 1000, "sheddable": 100}}} gives
 * {@code waitTimeoutMs(SHEDDABLE) == 100} and 1000 for every other class;
 * {@code {"waitTimeoutMs": {"batch": 5}}} at {@code services[0].slots} records
 * {@code services[0].slots.waitTimeoutMs.batch: unknown key; expected one of default,
 * critical-plus, critical, sheddable-plus, sheddable}.
 */
final class SlotsParser {
  /** The longest wait for a slot that may be configured: one hour. */
  static final long MAX_WAIT_MS = 3_600_000;
  private static final long DEFAULT_WAIT_MS = 1000;

  private SlotsParser() {
  }

  static SlotSettings parse(Node n) {
    int capacity = n.intIn("capacity", 100, 1, 1_000_000);
    long wait = DEFAULT_WAIT_MS;
    Map<Criticality, Long> classWaits = new EnumMap<>(Criticality.class);
    if (n.value("waitTimeoutMs") instanceof Map<?, ?>) {
      Node w = n.object("waitTimeoutMs");
      wait = w.longIn("default", DEFAULT_WAIT_MS, 0, MAX_WAIT_MS);
      for (Criticality c : Criticality.ALL) {
        if (w.has(c.wireName())) {
          classWaits.put(c, w.longIn(c.wireName(), wait, 0, MAX_WAIT_MS));
        }
      }
      w.rejectUnknownKeys();
    } else if (n.value("waitTimeoutMs") instanceof Number num && num.doubleValue() == Math.rint(num.doubleValue())
        && num.doubleValue() >= 0 && num.doubleValue() <= MAX_WAIT_MS) {
      wait = num.longValue();
    } else if (n.value("waitTimeoutMs") != null) {
      n.problem("waitTimeoutMs", n.value("waitTimeoutMs"), "an integer from 0 to " + MAX_WAIT_MS
          + ", or an object of waits by criticality like {\"default\": 1000, \"sheddable\": 100}");
    }
    long same = wait;
    classWaits.values().removeIf(ms -> ms == same);
    SlotSettings s = new SlotSettings(capacity, wait, n.intIn("maxWaiting", 10_000, 0, 10_000_000),
        n.intIn("maxActive", 0, 0, 10_000_000), classWaits);
    n.rejectUnknownKeys();
    return s;
  }
}
