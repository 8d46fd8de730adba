package dev.fairway.discovery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What to do to a service's discovered backends so that they match a new answer.
 *
 * <p>Example: current {@code {a, b, c}} (all serving), answer {@code [b, c', d]} where {@code c'}
 * is c with another weight gives {@code Changes[put=[c', d], remove=[a]]}: {@code put} goes through
 * the admin API's add-backends (a new id is created, a known one takes its new capacity and weight
 * in place), {@code remove} through its remove-backend (the backend drains like a lame duck). A
 * backend of the answer that still drains from an earlier removal is left out of {@code put}
 * until it is gone; the next lookup adds it again.
 *
 * @param put    backends to create or update, by id
 * @param remove ids to drain and remove, sorted
 */
public record Changes(List<Discovered> put, List<String> remove) {
  public Changes {
    put = List.copyOf(put);
    remove = List.copyOf(remove);
  }

  /**
   * @param current  the discovered backends the service lists now and that do not drain, by id
   * @param draining ids that drain now (removed earlier, not gone yet)
   * @param answer   what the latest answer asks for
   */
  public static Changes between(Map<String, Discovered> current, Set<String> draining, Collection<Discovered> answer) {
    List<Discovered> put = new ArrayList<>();
    Set<String> wanted = new TreeSet<>();
    for (Discovered d : answer) {
      wanted.add(d.id());
      if (!d.equals(current.get(d.id())) && !draining.contains(d.id())) {
        put.add(d);
      }
    }
    List<String> remove = new ArrayList<>(new TreeSet<>(current.keySet()));
    remove.removeAll(wanted);
    return new Changes(put, remove);
  }

  /** Whether nothing changes. */
  public boolean none() {
    return put.isEmpty() && remove.isEmpty();
  }
}
