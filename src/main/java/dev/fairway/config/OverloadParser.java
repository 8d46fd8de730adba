package dev.fairway.config;

import dev.fairway.config.RetrySettings.RetryOn;
import dev.fairway.overload.Criticality;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads and validates the overload keys: the top-level {@code overload} object and a service's
 * {@code defaultCriticality}, {@code retry} and {@code throttle}, recording each problem on the
 * {@link Node} with its JSON path; absent keys take {@link OverloadSettings#DEFAULTS} and
 * {@link ServiceOverload#DEFAULTS}.
 *
 * <p>Example: {@code "retry": {"on": ["reset", 503], "maxAttempts": 3}} gives retries on a reset
 * or a 503 of the idempotent methods, up to 3 tries, within the default budget;
 * {@code "retry": {"on": ["timeout"]}} at {@code services[0]} records
 * {@code services[0].retry.on[0]: "timeout" is invalid; expected one of connect-failure, reset,
 * refused-stream, 502, 503, 504}.
 */
final class OverloadParser {
  /** Largest {@code throttle.k}: beyond it, throttling would only start below a 1 % accept rate. */
  static final double MAX_K = 100;

  private OverloadParser() {
  }

  /** The top-level {@code overload} object: which headers carry criticality and deadlines. */
  static OverloadSettings headers(Node n) {
    OverloadSettings d = OverloadSettings.DEFAULTS;
    String criticality = header(n, "criticalityHeader", d.criticalityHeader());
    String deadline = header(n, "deadlineHeader", d.deadlineHeader());
    if (criticality.equalsIgnoreCase(deadline)) {
      n.problem("deadlineHeader", deadline, "a header other than criticalityHeader");
    }
    n.rejectUnknownKeys();
    return new OverloadSettings(criticality, deadline);
  }

  /** A service's {@code defaultCriticality}, {@code retry} and {@code throttle}, read from the service's node. */
  static ServiceOverload service(Node n) {
    ServiceOverload d = ServiceOverload.DEFAULTS;
    Criticality criticality = d.defaultCriticality();
    String text = n.string("defaultCriticality", null);
    if (text != null) {
      criticality = Criticality.parse(text);
      if (criticality == null) {
        n.problem("defaultCriticality", text, "one of " + Criticality.choices());
        criticality = d.defaultCriticality();
      }
    }
    RetrySettings retry = n.has("retry") ? retry(n.object("retry")) : d.retry();
    ThrottleSettings throttle = n.has("throttle") ? throttle(n.object("throttle")) : d.throttle();
    return new ServiceOverload(criticality, retry, throttle);
  }

  private static String header(Node n, String key, String dflt) {
    String name = n.string(key, dflt);
    if (!ReservedHeaders.isAllowed(name)) {
      n.problem(key, name, ReservedHeaders.EXPECTED);
      return dflt;
    }
    return name;
  }

  private static RetrySettings retry(Node n) {
    RetrySettings d = RetrySettings.DEFAULTS;
    Set<RetryOn> on = n.has("on") ? retryOn(n) : d.on();
    Set<String> methods = n.has("methods") ? methods(n) : d.methods();
    RetrySettings r = new RetrySettings(on, methods, n.intIn("maxAttempts", d.maxAttempts(), 1, 10),
        n.longIn("perTryTimeoutMs", d.perTryTimeoutMs(), 0, 86_400_000),
        n.doubleIn("budgetPercent", d.budgetPercent(), 0, 100),
        n.doubleIn("minRetriesPerSecond", d.minRetriesPerSecond(), 0, 100_000));
    n.rejectUnknownKeys();
    return r;
  }

  private static Set<RetryOn> retryOn(Node n) {
    StringBuilder choices = new StringBuilder();
    for (RetryOn r : RetryOn.values()) {
      choices.append(choices.length() == 0 ? "" : ", ").append(r.configName());
    }
    List<?> values = n.array("on", "a JSON array of " + choices);
    Set<RetryOn> on = EnumSet.noneOf(RetryOn.class);
    for (int i = 0; i < values.size(); i++) {
      RetryOn r = retryOn(values.get(i));
      if (r == null) {
        n.problemAt(n.child("on") + "[" + i + "]", Node.show(values.get(i)) + " is invalid; expected one of " + choices);
      } else {
        on.add(r);
      }
    }
    return on;
  }

  /** A {@code retry.on} entry: a name, or a status as a number; null if neither. */
  private static RetryOn retryOn(Object v) {
    String name = v instanceof String s ? s.toLowerCase(Locale.ROOT)
        : v instanceof Number num && num.doubleValue() == Math.rint(num.doubleValue())
            && Math.abs(num.doubleValue()) < 1000 ? String.valueOf(num.intValue()) : null;
    for (RetryOn r : RetryOn.values()) {
      if (r.configName().equals(name)) {
        return r;
      }
    }
    return null;
  }

  private static Set<String> methods(Node n) {
    List<?> values = n.array("methods", "a JSON array of method names like GET");
    Set<String> methods = new LinkedHashSet<>();
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) instanceof String s && isToken(s)) {
        methods.add(s.toUpperCase(Locale.ROOT));
      } else {
        n.problemAt(n.child("methods") + "[" + i + "]", Node.show(values.get(i))
            + " is invalid; expected a method name like GET (token characters)");
      }
    }
    return methods;
  }

  private static ThrottleSettings throttle(Node n) {
    ThrottleSettings d = ThrottleSettings.DEFAULTS;
    boolean enabled = n.bool("enabled", d.enabled());
    double k = d.k();
    Object v = n.value("k");
    if (v instanceof Number num && num.doubleValue() > 1 && num.doubleValue() <= MAX_K) {
      k = num.doubleValue();
    } else if (v != null) {
      n.problem("k", v, "a number above 1 and at most " + (int) MAX_K);
    }
    ThrottleSettings t = new ThrottleSettings(enabled, k, n.longIn("windowMs", d.windowMs(), 1000, 3_600_000),
        n.intIn("minRequests", d.minRequests(), 0, 1_000_000));
    n.rejectUnknownKeys();
    return t;
  }

  /** Whether {@code s} is a non-empty RFC 9110 token. */
  static boolean isToken(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean tchar = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!tchar) {
        return false;
      }
    }
    return true;
  }
}
