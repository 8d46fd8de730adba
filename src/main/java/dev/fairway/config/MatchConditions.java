package dev.fairway.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads the {@code method} and {@code headers} conditions of a service's {@code match}, recording
 * a problem with its JSON path for each bad entry.
 *
 * <p>Example: {@code "method": ["get", "HEAD"]} gives {@code [GET, HEAD]};
 * {@code "headers": [{"name": "x-v", "regex": "(["}} records
 * {@code services[0].match.headers[0].regex: "([" is invalid; expected a regular expression (...)}.
 */
final class MatchConditions {
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
  private static final String[] KINDS = {"exact", "prefix", "regex"};

  private MatchConditions() {
  }

  /** The upper-case methods of {@code method}; empty when absent. */
  static List<String> methods(Node match) {
    List<?> raw = match.array("method", "a JSON array of method names such as [\"GET\", \"POST\"]");
    List<String> out = new ArrayList<>(raw.size());
    for (int i = 0; i < raw.size(); i++) {
      Object m = raw.get(i);
      if (m instanceof String s && TOKEN.matcher(s).matches()) {
        String upper = s.toUpperCase(Locale.ROOT);
        if (!out.contains(upper)) {
          out.add(upper);
        }
      } else {
        match.problemAt(match.child("method") + "[" + i + "]", Node.show(m) + " is invalid; expected a method name");
      }
    }
    return out;
  }

  /**
   * What replaces the path prefix in the backend's target: {@code ""} for {@code stripPrefix},
   * {@code rewritePrefix}'s value, or {@code null} (neither; both are a problem).
   */
  static String rewritePrefix(Node match) {
    boolean strip = match.bool("stripPrefix", false);
    String rewrite = match.string("rewritePrefix", null);
    if (rewrite != null && !rewrite.startsWith("/")) {
      match.problem("rewritePrefix", rewrite, "a path starting with /");
      return null;
    }
    if (strip && rewrite != null) {
      match.problemAt(match.path(), "has both stripPrefix and rewritePrefix; expected at most one");
      return null;
    }
    return strip ? "" : rewrite;
  }

  /** The conditions of {@code headers}; empty when absent. */
  static List<HeaderCondition> headers(Node match) {
    List<HeaderCondition> out = new ArrayList<>();
    for (Node h : match.objects("headers")) {
      HeaderCondition c = header(h);
      h.rejectUnknownKeys();
      if (c != null) {
        out.add(c);
      }
    }
    return out;
  }

  private static HeaderCondition header(Node h) {
    String name = h.requiredString("name");
    if (name != null && !TOKEN.matcher(name).matches()) {
      h.problem("name", name, "a header field name");
      name = null;
    }
    List<String> given = new ArrayList<>(1);
    for (String k : KINDS) {
      if (h.has(k)) {
        given.add(k);
      }
    }
    if (given.size() != 1) {
      h.problemAt(h.path(), (given.isEmpty() ? "has none" : "has " + String.join(" and ", given))
          + "; expected exactly one of exact, prefix, regex");
      return null;
    }
    String kind = given.get(0);
    String value = h.string(kind, "");
    Pattern pattern = null;
    if (kind.equals("regex")) {
      try {
        pattern = Pattern.compile(value);
      } catch (PatternSyntaxException e) {
        h.problem(kind, value, "a regular expression (" + e.getDescription() + " near index " + e.getIndex() + ")");
        return null;
      }
    }
    return name == null ? null
        : new HeaderCondition(name.toLowerCase(Locale.ROOT), HeaderCondition.Kind.valueOf(kind.toUpperCase(Locale.ROOT)),
            value, pattern);
  }
}
