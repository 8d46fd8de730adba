package dev.fairway.control;

import io.vertx.core.json.JsonObject;

/**
 * An admin command for the balancer, as sent on {@link Addresses#COMMANDS} and relayed on
 * {@link Addresses#CLUSTER_COMMANDS}: JSON with an {@code op}, parsed and written only here.
 *
 * <p>Example: {@code {"op":"lame-duck","id":"b1","on":true}} is {@code new LameDuck("b1", true)},
 * whose {@link #toJson()} gives back the same text, field order included;
 * {@code {"op":"remove-backend","service":"api","id":"b2"}} is {@code new RemoveBackend("api", "b2")}.
 */
public sealed interface BalancerCommand {
  /** The command as JSON; other cluster members parse it with {@link #fromJson}. */
  JsonObject toJson();

  /** One line for logs, e.g. {@code lame-duck of b1}. */
  String describe();

  /**
   * Parses a command. Missing fields stay {@code null} (the balancer then answers 404), a missing
   * {@code on} means {@code true}.
   *
   * @throws IllegalArgumentException {@code unknown command X} for an unknown {@code op}, or a
   *     field of the wrong type
   */
  static BalancerCommand fromJson(JsonObject json) {
    Object op = json.getValue("op");
    try {
      return switch (op instanceof String name ? name : "") {
        case LameDuck.OP -> new LameDuck(json.getString("id"), json.getBoolean("on", true));
        case AddBackends.OP -> new AddBackends(json.getString("service"), json.getValue("backends"));
        case RemoveBackend.OP -> new RemoveBackend(json.getString("service"), json.getString("id"));
        default -> throw new IllegalArgumentException("unknown command " + op);
      };
    } catch (ClassCastException e) {
      throw new IllegalArgumentException("malformed command " + op + ": " + json.encode());
    }
  }

  /**
   * {@code POST} ({@code on}) or {@code DELETE /api/backends/{id}/lame-duck}.
   *
   * @param id backend id
   * @param on true to enter lame duck, false to leave it
   */
  record LameDuck(String id, boolean on) implements BalancerCommand {
    static final String OP = "lame-duck";

    @Override
    public JsonObject toJson() {
      return new JsonObject().put("op", OP).put("id", id).put("on", on);
    }

    @Override
    public String describe() {
      return (on ? "lame-duck of " : "end of lame-duck of ") + id;
    }
  }

  /**
   * {@code POST /api/services/{name}/backends}.
   *
   * @param service  service name
   * @param backends the request body as decoded, normally a {@code JsonArray} of
   *                 {@code {"url", "capacity", "id"?, "weight"?}}; the balancer validates it
   */
  record AddBackends(String service, Object backends) implements BalancerCommand {
    static final String OP = "add-backends";

    @Override
    public JsonObject toJson() {
      return new JsonObject().put("op", OP).put("service", service).put("backends", backends);
    }

    @Override
    public String describe() {
      return "add-backends to " + service;
    }
  }

  /**
   * {@code DELETE /api/services/{name}/backends/{id}}.
   *
   * @param service service name
   * @param id      backend id
   */
  record RemoveBackend(String service, String id) implements BalancerCommand {
    static final String OP = "remove-backend";

    @Override
    public JsonObject toJson() {
      return new JsonObject().put("op", OP).put("service", service).put("id", id);
    }

    @Override
    public String describe() {
      return "remove-backend " + id + " from " + service;
    }
  }
}
