package dev.fairway.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Environment variables that override single config keys, applied to the decoded JSON before
 * validation so the usual rules (and messages) apply to them.
 *
 * <p>Example: {@code FAIRWAY_PROXY_PORT=8081} makes {@code proxy.port} 8081 whatever the file
 * says; {@code FAIRWAY_PROXY_PORT=http} is reported as
 * {@code env FAIRWAY_PROXY_PORT: "http" is invalid; expected an integer}. A blank value is ignored.
 */
final class EnvOverrides {
  /** Variable → {section, key, type}; type {@code int} or {@code string}. */
  static final Map<String, String[]> KEYS = new LinkedHashMap<>();

  static {
    KEYS.put("FAIRWAY_PROXY_HOST", new String[] {"proxy", "host", "string"});
    KEYS.put("FAIRWAY_PROXY_PORT", new String[] {"proxy", "port", "int"});
    KEYS.put("FAIRWAY_PROXY_INSTANCES", new String[] {"proxy", "instances", "int"});
    KEYS.put("FAIRWAY_ADMIN_HOST", new String[] {"admin", "host", "string"});
    KEYS.put("FAIRWAY_ADMIN_PORT", new String[] {"admin", "port", "int"});
    KEYS.put(ConfigParser.ADMIN_TOKEN_ENV, new String[] {"admin", "token", "string"});
    KEYS.put("FAIRWAY_CLIENT_ID", new String[] {"subsetting", "clientId", "int"});
    KEYS.put("FAIRWAY_CLIENT_COUNT", new String[] {"subsetting", "clientCount", "int"});
  }

  private EnvOverrides() {
  }

  /** A copy of {@code root} with the overrides set; problems go to {@code problems}. */
  @SuppressWarnings("unchecked")
  static Object apply(Object root, Map<String, String> env, List<String> problems) {
    if (!(root instanceof Map<?, ?> rootMap)) {
      return root;
    }
    Map<String, Object> out = new LinkedHashMap<>((Map<String, Object>) rootMap);
    KEYS.forEach((name, target) -> {
      String value = env.get(name);
      if (value == null || value.isBlank()) {
        return;
      }
      Object typed = value;
      if (target[2].equals("int")) {
        try {
          typed = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
          problems.add("env " + name + ": \"" + value + "\" is invalid; expected an integer");
          return;
        }
      }
      Object section = out.get(target[0]);
      Map<String, Object> copy = section instanceof Map<?, ?> m
          ? new LinkedHashMap<>((Map<String, Object>) m) : new LinkedHashMap<>();
      copy.put(target[1], typed);
      out.put(target[0], copy);
    });
    return out;
  }
}
