package dev.fairway.table;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.ObservationBatch;
import dev.fairway.balancer.Outcome;
import dev.fairway.balancer.OutcomeCounts;
import dev.fairway.config.ConfigException;
import dev.fairway.config.ConfigParser;
import dev.fairway.config.FairwayConfig;
import dev.fairway.health.Transition;
import dev.fairway.route.BalancerSnapshot;
import dev.fairway.slots.Admission;
import dev.fairway.slots.SlotTable;
import dev.fairway.slots.Waiter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * What the backend table tests share: a table over a real {@link SlotTable}, a listener that
 * records the table's events as one line each ({@code b1 healthy->lame-duck} for a transition,
 * {@code check b1 in 999} for a health check it asks for, {@code check b1 now}, {@code b1 removed:
 * why}, {@code panic a on} and {@code panic a off}), configs built as an operator writes them,
 * time moved by hand, and a random generator that always answers the largest value it may, so
 * that every delay is pinned.
 *
 * <p>Example: {@code startAB(); table.lameDuck("b2", true, now); assertThat(take()).isEqualTo("b2
 * healthy->lame-duck");}
 */
abstract class TableHarness {
  static final long S = 1_000_000_000L;

  final List<String> events = new ArrayList<>();
  final List<String> notes = new ArrayList<>();
  final List<BalancerSnapshot> published = new ArrayList<>();
  final SlotTable slots = new SlotTable(1);
  long now = 1_000 * S;
  BackendTable table;

  /** Answers the top of every range: {@code nextLong(a, b)} is {@code b - 1}. */
  static final RandomGenerator HIGHEST = new RandomGenerator() {
    @Override
    public long nextLong() {
      return Long.MAX_VALUE;
    }

    @Override
    public long nextLong(long bound) {
      return bound - 1;
    }

    @Override
    public long nextLong(long origin, long bound) {
      return bound - 1;
    }
  };

  final TableListener recorder = new TableListener() {
    @Override
    public void published(BalancerSnapshot snapshot) {
      published.add(snapshot);
    }

    @Override
    public void transitioned(String id, Transition t) {
      events.add(id + " " + t.from().jsonName() + "->" + t.to().jsonName());
    }

    @Override
    public void checkDue(String id, long delayMs) {
      events.add("check " + id + " in " + delayMs);
    }

    @Override
    public void checkNow(String id) {
      events.add("check " + id + " now");
    }

    @Override
    public void removed(String id, String why) {
      events.add(id + " removed: " + why);
    }

    @Override
    public void note(String line) {
      notes.add(line);
    }

    @Override
    public void panic(String service, boolean on, String line) {
      events.add("panic " + service + (on ? " on" : " off"));
      notes.add(line);
    }
  };

  // ---- config building

  static Map<String, Object> backend(String id, int port, int capacity) {
    return new LinkedHashMap<>(Map.of("id", id, "url", "http://127.0.0.1:" + port, "capacity", capacity));
  }

  /** A service matching {@code /name}, round robin, checks every second, thresholds 2/3. */
  static Map<String, Object> service(String name, int subsetSize, Object... backends) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("name", name);
    s.put("match", Map.of("host", "*", "pathPrefix", "/" + name));
    s.put("strategy", "round-robin");
    s.put("subsetSize", subsetSize);
    s.put("healthCheck", Map.of("path", "/health", "intervalMs", 1000, "timeoutMs", 500,
        "healthyThreshold", 2, "unhealthyThreshold", 3));
    s.put("backends", List.of(backends));
    return s;
  }

  @SafeVarargs
  static FairwayConfig config(Map<String, Object>... services) {
    return config(0, 1, services);
  }

  /** A config whose proxy is client {@code clientId} of {@code clientCount} for subsetting. */
  @SafeVarargs
  static FairwayConfig config(int clientId, int clientCount, Map<String, Object>... services) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("subsetting", Map.of("clientId", clientId, "clientCount", clientCount));
    root.put("proxy", Map.of("host", "127.0.0.1", "port", 0));
    root.put("admin", Map.of("host", "127.0.0.1", "port", 0, "token", "test-token-0123456789"));
    root.put("services", List.of(services));
    try {
      return ConfigParser.parse(root, Map.of());
    } catch (ConfigException e) {
      throw new IllegalArgumentException(String.join("\n", e.problems()), e);
    }
  }

  void start(FairwayConfig config) {
    table = new BackendTable(config, "hash1", slots, HIGHEST, recorder, now);
    table.load(now);
  }

  /** Two services: {@code a} over b1, b2, b3 and {@code b} over b1 alone. */
  void startAB() {
    start(config(service("a", 0, backend("b1", 9001, 2), backend("b2", 9002, 2), backend("b3", 9003, 2)),
        service("b", 0, backend("b1", 9001, 2))));
    take();
  }

  /** The events since the last call, comma-separated. */
  String take() {
    String out = String.join(", ", events);
    events.clear();
    return out;
  }

  String state(String id) {
    BackendView v = table.backend(id);
    return v == null ? "gone" : v.state().jsonName();
  }

  static CheckOutcome pass() {
    return new CheckOutcome(200, false, true, null, null);
  }

  static CheckOutcome refused() {
    return new CheckOutcome(0, false, false, null, "connection refused");
  }

  /** One period of {@code n} 500 answers of {@code id}. */
  static ObservationBatch failures(String id, int n) {
    return batch(id, Collections.nCopies(n, Outcome.SERVER_ERROR).toArray(Outcome[]::new));
  }

  /** One period of {@code id}'s requests ending as {@code outcomes}, in this order. */
  static ObservationBatch batch(String id, Outcome... outcomes) {
    return new ObservationBatch(List.of(OutcomeCounts.of(id, outcomes)));
  }

  /** A waiter for {@link SlotTable#acquire} that ignores late grants. */
  static Waiter waiter() {
    return new Waiter() {
      @Override
      protected void granted(Endpoint endpoint) {
      }

      @Override
      protected void shed() {
      }
    };
  }

  /** The backends a service grants slots on now, one acquire and release per member. */
  String grants(String service) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < table.members(service).size(); i++) {
      Waiter w = waiter();
      Admission a = slots.acquire(slots.service(service), w, now);
      out.add(a == Admission.GRANTED ? w.endpoint().id() : a.name());
      if (a == Admission.GRANTED) {
        slots.release(w, now, 0, false);
      }
    }
    return String.join(" ", out);
  }
}
