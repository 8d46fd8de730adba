package dev.fairway.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads a service's {@code requestHeaders} and {@code responseHeaders}, recording each problem on
 * the {@link Node} with its JSON path; absent keys give {@link HeaderRules#NONE}.
 *
 * <p>Example: {@code "requestHeaders": {"set": {"X-Env": "prod"}, "remove": ["Cookie"]}} gives a
 * request edit that drops {@code Cookie} and sets {@code X-Env: prod};
 * {@code "responseHeaders": {"set": {"Connection": "x"}}} at {@code services[0]} records
 * {@code services[0].responseHeaders.set.Connection: "Connection" is invalid; expected a header
 * name made of token characters ...} (hop-by-hop and Fairway's own fields: {@link ReservedHeaders}).
 */
final class HeaderRulesParser {
  private static final String VALUE_EXPECTED = "a string of visible characters, spaces and tabs (no CR, LF, NUL "
      + "or other control character, nothing beyond ISO-8859-1)";

  private HeaderRulesParser() {
  }

  /** The service's two edits, read from the service's node. */
  static HeaderRules parse(Node service) {
    if (!service.has("requestHeaders") && !service.has("responseHeaders")) {
      return HeaderRules.NONE;
    }
    HeaderRules rules = new HeaderRules(edit(service.object("requestHeaders")), edit(service.object("responseHeaders")));
    return rules.isEmpty() ? HeaderRules.NONE : rules;
  }

  /**
   * Records a problem for each request rule naming {@code overload.criticalityHeader} or
   * {@code overload.deadlineHeader}: Fairway reads those from the client and writes them to the
   * backend itself.
   *
   * @param services the parsed services, at {@code services[i]}
   */
  static void checkOverloadHeaders(List<ServiceConfig> services, OverloadSettings o, List<String> problems) {
    for (int i = 0; i < services.size(); i++) {
      HeaderEdit e = services.get(i).headers().request();
      String at = "services[" + i + "].requestHeaders.";
      for (String name : e.remove()) {
        checkOverloadHeader(problems, at + "remove", name, o);
      }
      for (String name : e.set().keySet()) {
        checkOverloadHeader(problems, at + "set." + name, name, o);
      }
      for (String name : e.add().keySet()) {
        checkOverloadHeader(problems, at + "add." + name, name, o);
      }
    }
  }

  private static void checkOverloadHeader(List<String> problems, String path, String name, OverloadSettings o) {
    if (name.equalsIgnoreCase(o.criticalityHeader()) || name.equalsIgnoreCase(o.deadlineHeader())) {
      problems.add(path + ": " + Node.show(name) + " is invalid; expected a header other than "
          + "overload.criticalityHeader and overload.deadlineHeader (" + o.criticalityHeader() + ", "
          + o.deadlineHeader() + "), which Fairway forwards itself");
    }
  }

  private static HeaderEdit edit(Node n) {
    List<String> names = new ArrayList<>();
    List<String> remove = new ArrayList<>();
    List<?> raw = n.array("remove", "a JSON array of header names");
    for (int i = 0; i < raw.size(); i++) {
      String path = n.child("remove") + "[" + i + "]";
      if (raw.get(i) instanceof String s && name(n, path, s, names)) {
        remove.add(s.toLowerCase(Locale.ROOT));
      } else if (!(raw.get(i) instanceof String)) {
        n.problemAt(path, Node.show(raw.get(i)) + " is invalid; expected a header name");
      }
    }
    names.clear(); // a name removed may be set again
    Map<String, String> set = fields(n, "set", names);
    Map<String, String> add = fields(n, "add", new ArrayList<>());
    n.rejectUnknownKeys();
    HeaderEdit e = new HeaderEdit(set, add, remove);
    return e.isEmpty() ? HeaderEdit.NONE : e;
  }

  /** {@code set} or {@code add}: an object of header names to string values. */
  private static Map<String, String> fields(Node n, String key, List<String> names) {
    Map<String, String> out = new LinkedHashMap<>();
    if (!n.has(key)) {
      return out;
    }
    Object v = n.value(key);
    if (!(v instanceof Map<?, ?> m)) {
      n.problem(key, v, "a JSON object of header names to values");
      return out;
    }
    for (Map.Entry<?, ?> f : m.entrySet()) {
      String name = String.valueOf(f.getKey());
      String path = n.child(key) + "." + name;
      boolean ok = name(n, path, name, names);
      if (!(f.getValue() instanceof String value) || !validValue(value)) {
        Object shown = f.getValue() instanceof String text ? text.replace("\r", "\\r").replace("\n", "\\n")
            .replace("\0", "\\0") : f.getValue();
        n.problemAt(path, Node.show(shown) + " is invalid; expected " + VALUE_EXPECTED);
      } else if (ok) {
        out.put(name, value);
      }
    }
    return out;
  }

  /** Checks a header name at {@code path}, once per edit part ({@code seen}, lower case). */
  private static boolean name(Node n, String path, String name, List<String> seen) {
    if (!ReservedHeaders.isAllowed(name)) {
      n.problemAt(path, Node.show(name) + " is invalid; expected " + ReservedHeaders.EXPECTED);
      return false;
    }
    String lower = name.toLowerCase(Locale.ROOT);
    if (seen.contains(lower)) {
      n.problemAt(path, Node.show(name) + " is invalid; expected each header name once (names match in any case)");
      return false;
    }
    seen.add(lower);
    return true;
  }

  /** Whether a value can go on the wire as it is (RFC 9110 §5.5: VCHAR, SP, HTAB, obs-text). */
  private static boolean validValue(String v) {
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (!(c == '\t' || c >= ' ' && c <= '~' || c >= 0x80 && c <= 0xff)) {
        return false;
      }
    }
    return true;
  }
}
