package dev.fairway.testing;

import dev.fairway.config.ConfigException;
import dev.fairway.config.ConfigParser;
import dev.fairway.config.FairwayConfig;
import dev.fairway.control.JsonValues;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * Builds test configurations as JSON, the way an operator writes them, and validates them with
 * the real parser. Proxy and admin listen on port 0.
 *
 * <p>Example: {@code TestConfig.service("api", backend("b1", port1, 2)).slots(2, 300).build()}.
 */
public final class TestConfig {
  private final JsonObject root = new JsonObject()
      .put("proxy", new JsonObject().put("host", "127.0.0.1").put("port", 0).put("instances", 2))
      .put("admin", new JsonObject().put("host", "127.0.0.1").put("port", 0).put("token", "test-token-0123456789"))
      .put("services", new JsonArray());

  private TestConfig() {
  }

  /** A config with one service matching everything, over the given backends. */
  public static TestConfig service(String name, JsonObject... backends) {
    return new TestConfig().addService(name, "/", backends);
  }

  /** A backend object {@code {"id", "url", "capacity"}} on 127.0.0.1. */
  public static JsonObject backend(String id, int port, int capacity) {
    return new JsonObject().put("id", id).put("url", "http://127.0.0.1:" + port).put("capacity", capacity);
  }

  public TestConfig addService(String name, String pathPrefix, JsonObject... backends) {
    JsonArray bs = new JsonArray();
    for (JsonObject b : backends) {
      bs.add(b);
    }
    services().add(new JsonObject().put("name", name)
        .put("match", new JsonObject().put("host", "*").put("pathPrefix", pathPrefix))
        .put("strategy", "round-robin")
        .put("backends", bs));
    return this;
  }

  /** The last service added, to set keys on it directly. */
  public JsonObject lastService() {
    return services().getJsonObject(services().size() - 1);
  }

  public TestConfig strategy(String strategy) {
    lastService().put("strategy", strategy);
    return this;
  }

  public TestConfig slots(int capacity, long waitTimeoutMs) {
    lastService().put("slots", new JsonObject().put("capacity", capacity).put("waitTimeoutMs", waitTimeoutMs));
    return this;
  }

  public TestConfig timeouts(long connectMs, long responseMs) {
    lastService().put("timeouts", new JsonObject().put("connectMs", connectMs).put("responseMs", responseMs));
    return this;
  }

  public TestConfig healthCheck(long intervalMs, long timeoutMs, int healthyThreshold, int unhealthyThreshold) {
    lastService().put("healthCheck", new JsonObject().put("path", "/health").put("intervalMs", intervalMs)
        .put("timeoutMs", timeoutMs).put("healthyThreshold", healthyThreshold)
        .put("unhealthyThreshold", unhealthyThreshold));
    return this;
  }

  /** Sets a key of the last service's {@code healthCheck} (such as {@code expectStatus}). */
  public TestConfig healthCheck(String key, Object value) {
    JsonObject h = lastService().getJsonObject("healthCheck");
    if (h == null) {
      h = new JsonObject();
      lastService().put("healthCheck", h);
    }
    h.put(key, value);
    return this;
  }

  /** Sets a {@code proxy} key (edge limits such as {@code maxHeaderCount}). */
  public TestConfig proxy(String key, Object value) {
    root.getJsonObject("proxy").put(key, value);
    return this;
  }

  /** Sets a key of the last service's {@code timeouts}. */
  public TestConfig timeout(String key, long ms) {
    JsonObject t = lastService().getJsonObject("timeouts");
    if (t == null) {
      t = new JsonObject();
      lastService().put("timeouts", t);
    }
    t.put(key, ms);
    return this;
  }

  public TestConfig instances(int n) {
    root.getJsonObject("proxy").put("instances", n);
    return this;
  }

  public JsonObject json() {
    return root;
  }

  private JsonArray services() {
    return root.getJsonArray("services");
  }

  public FairwayConfig build() {
    try {
      return ConfigParser.parse(JsonValues.toPlain(root), Map.of());
    } catch (ConfigException e) {
      throw new IllegalArgumentException(String.join("\n", e.problems()), e);
    }
  }
}
