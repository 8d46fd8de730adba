package dev.fairway.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Header changes applied to one direction of a service's traffic.
 *
 * <p>Example: {@code {"set": {"X-Env": "prod"}, "add": {"X-Served-By": "fairway"}, "remove": ["Server"]}}
 * replaces any {@code X-Env} with {@code prod}, appends an {@code X-Served-By} value and drops {@code Server}.
 * They apply in that order: remove, then set, then add; names match in any case, and set and
 * added fields go out in the order given.
 *
 * @param set    headers whose values are replaced (added when absent)
 * @param add    headers appended, after any the message already has
 * @param remove header names dropped, in any case
 */
public record HeaderEdit(Map<String, String> set, Map<String, String> add, List<String> remove) {
  /** No change. */
  public static final HeaderEdit NONE = new HeaderEdit(Map.of(), Map.of(), List.of());

  public HeaderEdit {
    set = Collections.unmodifiableMap(new LinkedHashMap<>(set));
    add = Collections.unmodifiableMap(new LinkedHashMap<>(add));
    remove = List.copyOf(remove);
  }

  /** Whether this edit changes nothing. */
  public boolean isEmpty() {
    return set.isEmpty() && add.isEmpty() && remove.isEmpty();
  }
}
