package dev.fairway.cluster;

import dev.fairway.cluster.IdAssignment.Claim;
import dev.fairway.cluster.IdAssignment.Reservation;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.util.TreeMap;

/**
 * An {@link IdAssignment} as the JSON string kept in the cluster's map.
 *
 * <p>Example: {@code a=0 c=2 (b=1 until 31000)} is
 * {@code {"live":{"a":{"id":0,"node":"5c1…"},"c":{"id":2,"node":"e0f…"}},"reserved":{"b":{"id":1,"untilMs":31000}}}}.
 */
final class AssignmentJson {
  private AssignmentJson() {
  }

  static String encode(IdAssignment a) {
    JsonObject live = new JsonObject();
    a.live().forEach((key, c) -> live.put(key, new JsonObject().put("id", c.id()).put("node", c.nodeId())));
    JsonObject reserved = new JsonObject();
    a.reserved().forEach((key, r) -> reserved.put(key, new JsonObject().put("id", r.id()).put("untilMs", r.untilMs())));
    return new JsonObject().put("live", live).put("reserved", reserved).encode();
  }

  /**
   * The assignment {@code text} holds; {@link IdAssignment#EMPTY} for {@code null} (no member has
   * written one yet).
   *
   * @throws IllegalArgumentException if {@code text} is not such JSON
   */
  static IdAssignment decode(String text) {
    if (text == null) {
      return IdAssignment.EMPTY;
    }
    try {
      JsonObject json = new JsonObject(text);
      TreeMap<String, Claim> live = new TreeMap<>();
      json.getJsonObject("live").forEach(e -> {
        JsonObject c = (JsonObject) e.getValue();
        live.put(e.getKey(), new Claim(c.getInteger("id"), c.getString("node")));
      });
      TreeMap<String, Reservation> reserved = new TreeMap<>();
      json.getJsonObject("reserved").forEach(e -> {
        JsonObject r = (JsonObject) e.getValue();
        reserved.put(e.getKey(), new Reservation(r.getInteger("id"), r.getLong("untilMs")));
      });
      return new IdAssignment(live, reserved);
    } catch (DecodeException | ClassCastException | NullPointerException e) {
      throw new IllegalArgumentException("not a client-id assignment: " + text, e);
    }
  }
}
