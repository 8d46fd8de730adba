package dev.fairway.cluster;

import dev.fairway.lease.Holding;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.TreeMap;

/**
 * The lease map's value for one backend: every member's holding as a JSON string.
 *
 * <p>Example: {@code {"7f…":{"share":14,"inUse":14,"demand":23,"updatedAt":1764208000000},
 * "c1…":{"share":3,"inUse":2,"demand":3,"updatedAt":1764208000012}}}, keyed by Vert.x node id; a
 * member that does not use the backend (not in its subsets) has {@code "uses":false} and share 0.
 */
final class LeaseEntries {
  private LeaseEntries() {
  }

  /** The holdings in {@code json}; an absent entry ({@code null}) holds nothing. */
  static Map<String, Holding> decode(String json) {
    Map<String, Holding> out = new TreeMap<>();
    if (json == null || json.isEmpty()) {
      return out;
    }
    JsonObject o = new JsonObject(json);
    for (String member : o.fieldNames()) {
      JsonObject h = o.getJsonObject(member);
      out.put(member, new Holding(h.getInteger("share", 0), h.getInteger("inUse", 0), h.getInteger("demand", 0),
          h.getLong("updatedAt", 0L), h.getBoolean("uses", true)));
    }
    return out;
  }

  static String encode(Map<String, Holding> holdings) {
    JsonObject o = new JsonObject();
    new TreeMap<>(holdings).forEach((member, h) -> {
      JsonObject j = new JsonObject()
          .put("share", h.share())
          .put("inUse", h.inUse())
          .put("demand", h.demand())
          .put("updatedAt", h.updatedAtMs());
      if (!h.uses()) {
        j.put("uses", false);
      }
      o.put(member, j);
    });
    return o.encode();
  }
}
