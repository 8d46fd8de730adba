package dev.fairway.control;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns Vert.x JSON values into plain maps and lists, so pure code can read them.
 *
 * <p>Example: {@code toPlain(new JsonObject().put("a", new JsonArray().add(1)))} is
 * {@code {a=[1]}} as a {@code LinkedHashMap} holding an {@code ArrayList}.
 */
public final class JsonValues {
  private JsonValues() {
  }

  public static Object toPlain(Object value) {
    if (value instanceof JsonObject o) {
      return toPlain(o.getMap());
    }
    if (value instanceof JsonArray a) {
      return toPlain(a.getList());
    }
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, v) -> out.put(String.valueOf(k), toPlain(v)));
      return out;
    }
    if (value instanceof List<?> l) {
      List<Object> out = new ArrayList<>(l.size());
      l.forEach(v -> out.add(toPlain(v)));
      return out;
    }
    return value;
  }
}
