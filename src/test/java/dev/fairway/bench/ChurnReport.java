package dev.fairway.bench;

import dev.fairway.balancer.RendezvousSubsetter;
import dev.fairway.balancer.Subsetter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Prints how many client–backend pairs each subsetting algorithm changes when one backend or one
 * proxy comes or goes, and how evenly the backends are spread, for {@code bench/cluster.sh}.
 *
 * <p>Example: {@code java -cp … dev.fairway.bench.ChurnReport --clients 300 --backends 300
 * --subset 10} prints, per algorithm ({@code book}: {@link Subsetter}, {@code rendezvous}:
 * {@link RendezvousSubsetter}), lines like
 * {@code rendezvous  +1 backend  changed 30  beyond unavoidable 20 (0.7 %)  spread 1}. A pair
 * that changed is a connection closed and another opened; the unavoidable ones are the pairs a
 * new backend must take or a removed backend or proxy had. Spread is the most minus the fewest
 * proxies on a backend.
 */
public final class ChurnReport {
  private ChurnReport() {
  }

  /** An algorithm's subsets for every client. */
  private interface Algorithm {
    List<List<String>> subsets(List<String> ids, int clients, int size);
  }

  public static void main(String[] args) {
    Flags flags = Flags.parse(args);
    int clients = flags.integer("clients", 300);
    int backends = flags.integer("backends", 300);
    int size = flags.integer("subset", 10);
    System.out.printf(Locale.ROOT, "subsetting churn: %d proxies x %d backends x subset %d (%d pairs)%n",
        clients, backends, size, clients * size);
    Map<String, Algorithm> algorithms = new TreeMap<>();
    algorithms.put("book", ChurnReport::book);
    algorithms.put("rendezvous", RendezvousSubsetter::subsets);
    algorithms.forEach((name, a) -> report(name, a, clients, backends, size).forEach(System.out::println));
  }

  /** The lines of one algorithm: the base spread, then +1/−1 backend and +1/−1 proxy. */
  static List<String> report(String name, Algorithm a, int clients, int backends, int size) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < backends; i++) {
      ids.add(String.format(Locale.ROOT, "b%05d", i));
    }
    String added = String.format(Locale.ROOT, "b%05d", backends);
    String removed = ids.get(backends / 2);
    List<String> more = new ArrayList<>(ids);
    more.add(added);
    List<String> fewer = new ArrayList<>(ids);
    fewer.remove(removed);
    List<List<String>> base = a.subsets(ids, clients, size);
    List<List<String>> plusBackend = a.subsets(more, clients, size);
    List<List<String>> minusBackend = a.subsets(fewer, clients, size);
    List<List<String>> plusClient = a.subsets(ids, clients + 1, size);
    List<List<String>> minusClient = a.subsets(ids, clients - 1, size);
    int pairs = clients * size;
    return List.of(
        line(name, "base", 0, 0, spread(ids, base), pairs),
        line(name, "+1 backend", changed(base, plusBackend), load(more, plusBackend).get(added),
            spread(more, plusBackend), pairs),
        line(name, "-1 backend", changed(base, minusBackend), load(ids, base).get(removed),
            spread(fewer, minusBackend), pairs),
        line(name, "+1 proxy", changed(base, plusClient), 0, spread(ids, plusClient), pairs),
        line(name, "-1 proxy", changed(base, minusClient), base.get(clients - 1).size(),
            spread(ids, minusClient), pairs));
  }

  private static String line(String name, String change, int changed, int unavoidable, int spread, int pairs) {
    return String.format(Locale.ROOT, "  %-10s  %-10s  changed %5d  beyond unavoidable %5d (%5.1f %%)  spread %d",
        name, change, changed, changed - unavoidable, 100.0 * (changed - unavoidable) / pairs, spread);
  }

  private static List<List<String>> book(List<String> ids, int clients, int size) {
    List<List<String>> all = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      all.add(Subsetter.subset(ids, c, size));
    }
    return all;
  }

  /** How many clients have each backend. */
  public static Map<String, Integer> load(List<String> ids, List<List<String>> subsets) {
    Map<String, Integer> load = new TreeMap<>();
    ids.forEach(id -> load.put(id, 0));
    subsets.forEach(s -> s.forEach(id -> load.merge(id, 1, Integer::sum)));
    return load;
  }

  /** Most minus fewest clients on a backend. */
  public static int spread(List<String> ids, List<List<String>> subsets) {
    Map<String, Integer> load = load(ids, subsets);
    return Collections.max(load.values()) - Collections.min(load.values());
  }

  /** Pairs before that are gone after: each one a connection closed and another opened. */
  public static int changed(List<List<String>> before, List<List<String>> after) {
    Set<String> gone = pairs(before);
    gone.removeAll(pairs(after));
    return gone.size();
  }

  /** "client|backend" pairs of {@code subsets}. */
  public static Set<String> pairs(List<List<String>> subsets) {
    Set<String> pairs = new HashSet<>();
    for (int c = 0; c < subsets.size(); c++) {
      for (String id : subsets.get(c)) {
        pairs.add(c + "|" + id);
      }
    }
    return pairs;
  }
}
