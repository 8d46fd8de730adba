package dev.fairway.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A cursor into parsed JSON (maps, lists, strings, numbers, booleans) that records every problem
 * it meets, each as one line naming the JSON path, the value and what was expected.
 *
 * <p>Example: reading {@code port} from {@code {"port": 70000}} at path {@code proxy} with
 * {@code node.intIn("port", 8080, 0, 65535)} returns 8080 and records
 * {@code proxy.port: 70000 is invalid; expected an integer from 0 to 65535}.
 */
final class Node {
  private final String path;
  private final Map<String, Object> map;
  private final List<String> problems;
  private final Set<String> allowed = new LinkedHashSet<>();

  private Node(String path, Map<String, Object> map, List<String> problems) {
    this.path = path;
    this.map = map;
    this.problems = problems;
  }

  /** An element of a top-level array, at path {@code [index]}; a non-object records a problem. */
  static Node element(int index, Object value, List<String> problems) {
    String p = "[" + index + "]";
    if (value instanceof Map<?, ?> m) {
      return new Node(p, cast(m), problems);
    }
    problems.add(p + ": " + show(value) + " is invalid; expected a JSON object");
    return null;
  }

  static Node root(Object value, List<String> problems) {
    if (value instanceof Map<?, ?> m) {
      return new Node("", cast(m), problems);
    }
    problems.add("$: " + show(value) + " is invalid; expected a JSON object");
    return new Node("", Map.of(), problems);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cast(Map<?, ?> m) {
    return (Map<String, Object>) m;
  }

  String path() {
    return path;
  }

  String child(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  boolean has(String key) {
    allowed.add(key);
    return map.containsKey(key) && map.get(key) != null;
  }

  void problem(String key, Object value, String expected) {
    problems.add(child(key) + ": " + show(value) + " is invalid; expected " + expected);
  }

  void problemAt(String fullPath, String message) {
    problems.add(fullPath + ": " + message);
  }

  /** An object-valued key; a missing key gives an empty object, a wrong type a problem. */
  Node object(String key) {
    allowed.add(key);
    Object v = map.get(key);
    if (v == null) {
      return new Node(child(key), Map.of(), problems);
    }
    if (v instanceof Map<?, ?> m) {
      return new Node(child(key), cast(m), problems);
    }
    problem(key, v, "a JSON object");
    return new Node(child(key), Map.of(), problems);
  }

  /** An array of objects; a missing key gives an empty list. */
  List<Node> objects(String key) {
    allowed.add(key);
    Object v = map.get(key);
    if (v == null) {
      return List.of();
    }
    if (!(v instanceof List<?> list)) {
      problem(key, v, "a JSON array of objects");
      return List.of();
    }
    List<Node> out = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      String p = child(key) + "[" + i + "]";
      if (list.get(i) instanceof Map<?, ?> m) {
        out.add(new Node(p, cast(m), problems));
      } else {
        problems.add(p + ": " + show(list.get(i)) + " is invalid; expected a JSON object");
      }
    }
    return Collections.unmodifiableList(out);
  }

  /** The elements of an array-valued key; a missing key gives an empty list, a non-array a problem. */
  List<?> array(String key, String expected) {
    allowed.add(key);
    Object v = map.get(key);
    if (v == null) {
      return List.of();
    }
    if (v instanceof List<?> list) {
      return list;
    }
    problem(key, v, expected);
    return List.of();
  }

  /** The raw value of a key (maps, lists, strings, numbers, booleans), or {@code null} when absent. */
  Object value(String key) {
    allowed.add(key);
    return map.get(key);
  }

  String string(String key, String dflt) {
    allowed.add(key);
    Object v = map.get(key);
    if (v == null) {
      return dflt;
    }
    if (v instanceof String s) {
      return s;
    }
    problem(key, v, "a string");
    return dflt;
  }

  /** A required non-empty string; null (after recording a problem) when absent. */
  String requiredString(String key) {
    allowed.add(key);
    Object v = map.get(key);
    if (v instanceof String s && !s.isBlank()) {
      return s;
    }
    if (v == null) {
      problemAt(child(key), "missing; expected a non-empty string");
    } else {
      problem(key, v, "a non-empty string");
    }
    return null;
  }

  int intIn(String key, int dflt, int min, int max) {
    return (int) longIn(key, dflt, min, max);
  }

  long longIn(String key, long dflt, long min, long max) {
    allowed.add(key);
    Object v = map.get(key);
    if (v == null) {
      return dflt;
    }
    String expected = max == Long.MAX_VALUE || max == Integer.MAX_VALUE
        ? "an integer >= " + min : "an integer from " + min + " to " + max;
    if (v instanceof Number n && isIntegral(n)) {
      long l = n.longValue();
      if (l >= min && l <= max) {
        return l;
      }
    }
    problem(key, v, expected);
    return dflt;
  }

  private static boolean isIntegral(Number n) {
    if (n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte) {
      return true;
    }
    double d = n.doubleValue();
    return d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 9.0e15;
  }

  double doubleIn(String key, double dflt, double min, double max) {
    allowed.add(key);
    Object v = map.get(key);
    if (v == null) {
      return dflt;
    }
    if (v instanceof Number n && n.doubleValue() >= min && n.doubleValue() <= max) {
      return n.doubleValue();
    }
    problem(key, v, "a number from " + min + " to " + max);
    return dflt;
  }

  boolean bool(String key, boolean dflt) {
    allowed.add(key);
    Object v = map.get(key);
    if (v == null) {
      return dflt;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    problem(key, v, "true or false");
    return dflt;
  }

  /** Records every key of this object that no reader asked for. Call after reading all keys. */
  void rejectUnknownKeys() {
    for (String key : map.keySet()) {
      if (!allowed.contains(key)) {
        problemAt(child(key), "unknown key; expected one of " + String.join(", ", allowed));
      }
    }
  }

  static String show(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof String s) {
      return "\"" + s + "\"";
    }
    if (v instanceof Map<?, ?>) {
      return "an object";
    }
    if (v instanceof List<?>) {
      return "an array";
    }
    return String.valueOf(v);
  }
}
