package dev.fairway.config;

import java.util.List;
import java.util.Map;

/**
 * Header changes applied to one direction of a service's traffic.
 *
 * <p>Example: {@code {"set": {"X-Env": "prod"}, "add": {"Via": "1.1 fairway"}, "remove": ["Server"]}}
 * replaces any {@code X-Env} with {@code prod}, appends a {@code Via} value and drops {@code Server}.
 *
 * @param set    headers whose values are replaced (added when absent)
 * @param add    headers appended, after any the message already has
 * @param remove header names dropped, in any case
 */
public record HeaderEdit(Map<String, String> set, Map<String, String> add, List<String> remove) {
  /** No change. */
  public static final HeaderEdit NONE = new HeaderEdit(Map.of(), Map.of(), List.of());

  public HeaderEdit {
    set = Map.copyOf(set);
    add = Map.copyOf(add);
    remove = List.copyOf(remove);
  }

  /** Whether this edit changes nothing. */
  public boolean isEmpty() {
    return set.isEmpty() && add.isEmpty() && remove.isEmpty();
  }
}
