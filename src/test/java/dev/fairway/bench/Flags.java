package dev.fairway.bench;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code --name value} command line of the overload bench tools, with defaults per flag.
 *
 * <p>Example: {@code Flags.parse(new String[] {"--rate", "80"}).integer("rate", 0)} is 80, and
 * {@code .integer("seconds", 10)} is 10; {@code Flags.mix("critical=5,sheddable=60")} is
 * {@code {critical=5, sheddable=60}} in that order.
 */
final class Flags {
  private final Map<String, String> values;

  private Flags(Map<String, String> values) {
    this.values = values;
  }

  static Flags parse(String[] args) {
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value pairs, got '" + args[i] + "'");
      }
      values.put(args[i].substring(2), args[i + 1]);
    }
    return new Flags(values);
  }

  String string(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  int integer(String name, int fallback) {
    String v = values.get(name);
    return v == null ? fallback : Integer.parseInt(v);
  }

  /** {@code "a=1,b=2"} as an ordered map; an empty text gives an empty map. */
  static Map<String, Integer> mix(String text) {
    Map<String, Integer> mix = new LinkedHashMap<>();
    for (String part : text.split(",")) {
      if (part.isBlank()) {
        continue;
      }
      String[] kv = part.split("=", 2);
      if (kv.length != 2) {
        throw new IllegalArgumentException("expected name=number, got '" + part + "'");
      }
      mix.put(kv[0].trim(), Integer.parseInt(kv[1].trim()));
    }
    return mix;
  }
}
