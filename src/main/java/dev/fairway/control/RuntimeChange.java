package dev.fairway.control;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One admin command as the cluster keeps it: keyed so that a later change of the same backend
 * supersedes an earlier one, and stamped so that every member agrees which is later.
 *
 * <p>Example: {@code POST /api/services/api/backends} with {@code [{"id":"b9",…},{"id":"b10",…}]}
 * becomes two changes, keys {@code backend/api/b9} and {@code backend/api/b10}, each an
 * {@code add-backends} of one backend; a later {@code DELETE /api/services/api/backends/b9}
 * is the change {@code backend/api/b9} again, which replaces the first. {@code POST
 * /api/backends/b3/lame-duck} is the change {@code lame-duck/b3} with {@code on: true}, and the
 * {@code DELETE} of it the same key with {@code on: false}.
 *
 * @param key     what the change is about: {@code lame-duck/ID} or {@code backend/SERVICE/ID}
 * @param stamp   when and where it was made
 * @param command the command to apply, about that key alone
 */
public record RuntimeChange(String key, Stamp stamp, BalancerCommand command) {
  /**
   * The order a replay applies changes in: backend additions and removals first, then lame-duck
   * states (so a lame duck of a backend added at runtime finds it), each by stamp.
   */
  public static final Comparator<RuntimeChange> REPLAY_ORDER = Comparator
      .comparing((RuntimeChange c) -> c.command() instanceof BalancerCommand.LameDuck)
      .thenComparing(RuntimeChange::stamp);

  /**
   * The changes an applied command makes.
   *
   * @param ids for {@code add-backends}, the ids of the body's backends in its order (as the table
   *            resolved them); ignored for the others
   */
  public static List<RuntimeChange> of(BalancerCommand cmd, List<String> ids, Stamp stamp) {
    if (cmd instanceof BalancerCommand.LameDuck c) {
      return List.of(new RuntimeChange("lame-duck/" + c.id(), stamp, c));
    }
    if (cmd instanceof BalancerCommand.RemoveBackend c) {
      return List.of(new RuntimeChange(backendKey(c.service(), c.id()), stamp, c));
    }
    BalancerCommand.AddBackends c = (BalancerCommand.AddBackends) cmd;
    JsonArray body = (JsonArray) c.backends();
    List<RuntimeChange> out = new ArrayList<>(ids.size());
    for (int i = 0; i < ids.size(); i++) {
      JsonObject one = body.getJsonObject(i).copy().put("id", ids.get(i));
      out.add(new RuntimeChange(backendKey(c.service(), ids.get(i)), stamp,
          new BalancerCommand.AddBackends(c.service(), new JsonArray().add(one))));
    }
    return out;
  }

  private static String backendKey(String service, String id) {
    return "backend/" + service + "/" + id;
  }

  /** The change as JSON, e.g. {@code {"key":"lame-duck/b3","at":…,"origin":…,"command":{…}}}. */
  public JsonObject toJson() {
    return new JsonObject().put("key", key).put("at", stamp.atMicros()).put("origin", stamp.origin())
        .put("command", command.toJson());
  }

  /**
   * Reads {@link #toJson()}'s form.
   *
   * @throws IllegalArgumentException if a field is missing or malformed
   */
  public static RuntimeChange fromJson(JsonObject json) {
    try {
      String key = json.getString("key");
      Long at = json.getLong("at");
      String origin = json.getString("origin");
      JsonObject command = json.getJsonObject("command");
      if (key == null || at == null || origin == null || command == null) {
        throw new IllegalArgumentException("incomplete runtime change: " + json.encode());
      }
      return new RuntimeChange(key, new Stamp(at, origin), BalancerCommand.fromJson(command));
    } catch (ClassCastException e) {
      throw new IllegalArgumentException("malformed runtime change: " + json.encode());
    }
  }
}
