package dev.fairway.balancer;

import java.util.Optional;

/**
 * Parses the value of the ORCA response header {@code endpoint-load-metrics} into a
 * {@link LoadReport}.
 *
 * <p>Example: {@code TEXT cpu_utilization=0.42, rps_fractional=120, eps=0.5} and
 * {@code JSON {"cpu_utilization":0.42,"rps_fractional":120,"eps":0.5}} both give
 * {@code LoadReport[cpuUtilization=0.42, applicationUtilization=0.0, qps=120.0, eps=0.5]};
 * {@code TEXT cpu_utilization=high} gives nothing.
 *
 * <ul>
 *   <li>{@code TEXT}: comma-separated {@code key=value} (or {@code key:value}) pairs, whitespace
 *       around any token ignored, empty pairs skipped, at least one pair;</li>
 *   <li>{@code JSON}: one JSON object; values of unknown keys may be any JSON value and are
 *       skipped;</li>
 *   <li>known keys: {@code cpu_utilization}, {@code application_utilization},
 *       {@code rps_fractional} (qps; the older integer {@code rps} is used when it is absent) and
 *       {@code eps}, each a plain non-negative decimal number (no NaN, Infinity, hex or suffix),
 *       at most once; other keys ({@code mem_utilization}, {@code named_metrics.*}, ...) are
 *       ignored; missing ones are 0;</li>
 *   <li>{@code BIN}: base64 of a serialized {@code OrcaLoadReport}, read by {@link OrcaBinary}
 *       (so {@code BIN CTMzMzMzM9M/MQAAAAAAACRA} is {@code TEXT cpu_utilization=0.3, rps_fractional=10});
 *       a recorded {@code endpoint-load-metrics-bin} value takes this form;</li>
 *   <li>the format name is case-insensitive; anything else is unsupported.</li>
 * </ul>
 * Invalid or unsupported input gives an empty result, never an exception.
 */
public final class OrcaParser {
  private static final int CPU = 0;
  private static final int APP = 1;
  private static final int RPS_FRACTIONAL = 2;
  private static final int EPS = 3;
  private static final int RPS = 4;

  private OrcaParser() {
  }

  /** @param header the header value, or {@code null} */
  public static Optional<LoadReport> parse(String header) {
    if (header == null) {
      return Optional.empty();
    }
    try {
      String s = header.strip();
      if (s.length() >= 4 && s.regionMatches(true, 0, "TEXT", 0, 4) && (s.length() == 4 || Character.isWhitespace(s.charAt(4)))) {
        return text(s.substring(4));
      }
      if (s.length() >= 4 && s.regionMatches(true, 0, "JSON", 0, 4) && (s.length() == 4 || Character.isWhitespace(s.charAt(4)))) {
        return new Json(s.substring(4)).report();
      }
      if (s.length() >= 4 && s.regionMatches(true, 0, OrcaBinary.TAG, 0, 4)) {
        return OrcaBinary.parse(s.substring(4));
      }
      return Optional.empty();
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static Optional<LoadReport> text(String body) {
    double[] values = fresh();
    int pairs = 0;
    for (String part : body.split(",", -1)) {
      String p = part.strip();
      if (p.isEmpty()) {
        continue;
      }
      int eq = indexOfSeparator(p);
      if (eq <= 0 || eq == p.length() - 1) {
        return Optional.empty();
      }
      String key = p.substring(0, eq).strip();
      String value = p.substring(eq + 1).strip();
      if (key.isEmpty() || value.isEmpty() || key.chars().anyMatch(Character::isWhitespace)) {
        return Optional.empty();
      }
      int slot = slot(key);
      if (slot >= 0 && !set(values, slot, number(value))) {
        return Optional.empty();
      }
      pairs++;
    }
    return pairs == 0 ? Optional.empty() : Optional.of(report(values));
  }

  private static int indexOfSeparator(String p) {
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      if (c == '=' || c == ':') {
        return i;
      }
    }
    return -1;
  }

  private static double[] fresh() {
    return new double[] {Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN};
  }

  private static int slot(String key) {
    return switch (key) {
      case "cpu_utilization" -> CPU;
      case "application_utilization" -> APP;
      case "rps_fractional" -> RPS_FRACTIONAL;
      case "eps" -> EPS;
      case "rps" -> RPS;
      default -> -1;
    };
  }

  /** Stores a value; false if it is invalid (NaN from {@link #number}) or the key came before. */
  private static boolean set(double[] values, int slot, double value) {
    if (Double.isNaN(value) || !Double.isNaN(values[slot])) {
      return false;
    }
    values[slot] = value;
    return true;
  }

  private static LoadReport report(double[] v) {
    double qps = !Double.isNaN(v[RPS_FRACTIONAL]) ? v[RPS_FRACTIONAL] : orZero(v[RPS]);
    return new LoadReport(orZero(v[CPU]), orZero(v[APP]), qps, orZero(v[EPS]));
  }

  private static double orZero(double v) {
    return Double.isNaN(v) ? 0 : v;
  }

  /** A plain non-negative decimal ({@code 12}, {@code 0.5}, {@code .5}, {@code 1e3}), else NaN. */
  static double number(String s) {
    int i = 0;
    int n = s.length();
    if (i < n && s.charAt(i) == '+') {
      i++;
    }
    int digits = 0;
    while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
      i++;
      digits++;
    }
    if (i < n && s.charAt(i) == '.') {
      i++;
      while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
        i++;
        digits++;
      }
    }
    if (digits == 0) {
      return Double.NaN;
    }
    if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      i++;
      if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
        i++;
      }
      int exp = 0;
      while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
        i++;
        exp++;
      }
      if (exp == 0) {
        return Double.NaN;
      }
    }
    if (i != n) {
      return Double.NaN;
    }
    double v = Double.parseDouble(s);
    return Double.isFinite(v) ? v : Double.NaN;
  }

  /** A tiny tolerant reader of one JSON object; unknown values are skipped whatever they are. */
  private static final class Json {
    private final String s;
    private int i;

    Json(String s) {
      this.s = s;
    }

    Optional<LoadReport> report() {
      double[] values = fresh();
      ws();
      if (!eat('{')) {
        return Optional.empty();
      }
      ws();
      if (!eat('}')) {
        do {
          ws();
          String key = string();
          ws();
          if (key == null || !eat(':')) {
            return Optional.empty();
          }
          ws();
          int slot = slot(key);
          if (slot >= 0) {
            int start = i;
            while (i < s.length() && "+-.0123456789eE".indexOf(s.charAt(i)) >= 0) {
              i++;
            }
            if (!set(values, slot, number(s.substring(start, i)))) {
              return Optional.empty();
            }
          } else if (!skipValue(0)) {
            return Optional.empty();
          }
          ws();
        } while (eat(','));
        if (!eat('}')) {
          return Optional.empty();
        }
      }
      ws();
      return i == s.length() ? Optional.of(OrcaParser.report(values)) : Optional.empty();
    }

    private boolean skipValue(int depth) {
      if (depth > 32 || i >= s.length()) {
        return false;
      }
      char c = s.charAt(i);
      if (c == '"') {
        return string() != null;
      }
      if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        i++;
        ws();
        if (eat(close)) {
          return true;
        }
        do {
          ws();
          if (c == '{') {
            if (string() == null) {
              return false;
            }
            ws();
            if (!eat(':')) {
              return false;
            }
            ws();
          }
          if (!skipValue(depth + 1)) {
            return false;
          }
          ws();
        } while (eat(','));
        return eat(close);
      }
      int start = i;
      while (i < s.length() && "+-.0123456789eEtruefalsn".indexOf(s.charAt(i)) >= 0) {
        i++;
      }
      return i > start;
    }

    /** A JSON string without escapes other than the simple ones; null if malformed. */
    private String string() {
      if (!eat('"')) {
        return null;
      }
      StringBuilder sb = new StringBuilder();
      while (i < s.length()) {
        char c = s.charAt(i++);
        if (c == '"') {
          return sb.toString();
        }
        if (c == '\\') {
          if (i >= s.length()) {
            return null;
          }
          char e = s.charAt(i++);
          if (e == 'u') {
            if (i + 4 > s.length()) {
              return null;
            }
            sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
          } else {
            sb.append(switch (e) {
              case 'n' -> '\n';
              case 't' -> '\t';
              case 'r' -> '\r';
              case 'b' -> '\b';
              case 'f' -> '\f';
              default -> e;
            });
          }
        } else {
          sb.append(c);
        }
      }
      return null;
    }

    private void ws() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
    }

    private boolean eat(char c) {
      if (i < s.length() && s.charAt(i) == c) {
        i++;
        return true;
      }
      return false;
    }
  }
}
