package dev.fairway.proxy;

import dev.fairway.config.EdgeLimits;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Edits the header fields of a message in place as it crosses the proxy, dropping hop-by-hop
 * fields (RFC 9110 §7.6.1 and every field named in {@code Connection}) and the backend signals
 * Fairway consumes, and setting {@code X-Forwarded-*} and {@code Via}.
 *
 * <p>Example: a request with {@code Connection: close, X-Trace} and {@code X-Trace: 1} reaches the
 * backend with neither field, with {@code X-Forwarded-For: 127.0.0.1} and {@code Via: 1.1 fairway}.
 * With {@code trustedHops} 0 a client's own {@code X-Forwarded-For: 6.6.6.6} is replaced, not
 * extended; with 1 it is kept and the peer appended ({@code 6.6.6.6, 127.0.0.1}). A field named
 * {@code x_user} is dropped (unless the listener rejects such requests outright).
 */
final class Headers {
  static final String VIA_TOKEN = "1.1 fairway";
  /** What Fairway adds to {@code Via} for a request it received over HTTP/2 (RFC 9110 §7.6.3). */
  static final String VIA_TOKEN_H2 = "2 fairway";
  static final String LAME_DUCK = "lame-duck";
  static final String LOAD_METRICS = "endpoint-load-metrics";
  private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("X-Forwarded-For");
  private static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("X-Forwarded-Proto");
  private static final AsciiString X_FORWARDED_HOST = AsciiString.cached("X-Forwarded-Host");
  private static final AsciiString VIA = AsciiString.cached("Via");
  private static final AsciiString VIA_VALUE = AsciiString.cached(VIA_TOKEN);
  private static final AsciiString HTTP = AsciiString.cached("http");

  /** Hop-by-hop field names (RFC 9110 §7.6.1), with Host and Expect, which Fairway sets or answers itself. */
  static final String[] HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
    "te", "trailer", "transfer-encoding", "upgrade", "host", "expect"
  };
  private static final String[] BACKEND_SIGNALS = {LAME_DUCK, LOAD_METRICS};
  /** Every field name a backend's response loses on its way to the client ({@code Via} is then set anew). */
  static final String[] DROPPED_FROM_RESPONSES =
      Stream.of(HOP_BY_HOP, BACKEND_SIGNALS, new String[] {"via"}).flatMap(Arrays::stream).toArray(String[]::new);

  private Headers() {
  }

  /**
   * Turns the client's request fields into the backend's, in place, and adds the forwarding
   * fields.
   *
   * @param client    the client's address ({@code X-Forwarded-For})
   * @param authority the client's {@code Host}, or {@code null} ({@code X-Forwarded-Host})
   * @param via       what to add to {@code Via}: {@link #VIA_TOKEN}, or {@link #VIA_TOKEN_H2}
   */
  static void toBackend(HttpHeaders h, String client, String authority, EdgeLimits limits, String via) {
    int trusted = limits.trustedHops();
    String connection = connectionValue(h);
    String priorProto = null;
    String priorHost = null;
    String priorFor = null;
    String priorVia = null;
    List<CharSequence> drop = null;
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence(); it.hasNext(); ) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      CharSequence name = e.getKey();
      if (isOneOf(name, HOP_BY_HOP) || listedIn(connection, name) || AsciiString.indexOf(name, '_', 0) >= 0) {
        drop = drop(drop, name);
        continue;
      }
      if (name.length() < 3 || !(startsWith(name, "x-forwarded-") || equalsIgnoreCase(name, "via"))) {
        continue;
      }
      String value = e.getValue().toString();
      if (equalsIgnoreCase(name, "x-forwarded-proto")) {
        priorProto = value;
      } else if (equalsIgnoreCase(name, "x-forwarded-host")) {
        priorHost = value;
      } else if (equalsIgnoreCase(name, "x-forwarded-for")) {
        priorFor = priorFor == null ? value : priorFor + ", " + value;
      } else if (equalsIgnoreCase(name, "via")) {
        priorVia = priorVia == null ? value : priorVia + ", " + value;
      }
      drop = drop(drop, name);
    }
    removeAll(h, drop);
    String kept = trusted == 0 ? null : lastEntries(priorFor, trusted);
    h.set(X_FORWARDED_FOR, kept == null ? client : kept + ", " + client);
    h.set(X_FORWARDED_PROTO, trusted > 0 && priorProto != null ? priorProto : HTTP);
    if (trusted > 0 && priorHost != null) {
      h.set(X_FORWARDED_HOST, priorHost);
    } else if (authority != null) {
      h.set(X_FORWARDED_HOST, authority);
    }
    h.set(VIA, priorVia == null ? (via == VIA_TOKEN ? VIA_VALUE : via) : priorVia + ", " + via);
  }

  /** Turns the backend's response fields into the client's, in place: minus hop-by-hop and signals. */
  static void toClient(HttpHeaders h) {
    String connection = connectionValue(h);
    String priorVia = null;
    List<CharSequence> drop = null;
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence(); it.hasNext(); ) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      CharSequence name = e.getKey();
      if (isOneOf(name, HOP_BY_HOP) || isOneOf(name, BACKEND_SIGNALS) || listedIn(connection, name)) {
        drop = drop(drop, name);
      } else if (equalsIgnoreCase(name, "via")) {
        priorVia = priorVia == null ? e.getValue().toString() : priorVia + ", " + e.getValue();
        drop = drop(drop, name);
      }
    }
    removeAll(h, drop);
    h.set(VIA, priorVia == null ? VIA_VALUE : priorVia + ", " + VIA_TOKEN);
  }

  /** Notes a field to remove once the walk over the fields is over. */
  private static List<CharSequence> drop(List<CharSequence> drop, CharSequence name) {
    List<CharSequence> d = drop == null ? new ArrayList<>(4) : drop;
    d.add(name);
    return d;
  }

  private static void removeAll(HttpHeaders h, List<CharSequence> names) {
    if (names != null) {
      for (int i = 0; i < names.size(); i++) {
        h.remove(names.get(i));
      }
    }
  }

  /** The {@code Connection} field's tokens as one comma-separated value; {@code null} if absent. */
  static String connectionValue(HttpHeaders headers) {
    if (!headers.contains(HttpHeaderNames.CONNECTION)) {
      return null;
    }
    List<String> all = headers.getAll(HttpHeaderNames.CONNECTION);
    return all.size() == 1 ? all.get(0) : String.join(",", all);
  }

  /**
   * The last {@code n} entries of a comma-separated {@code X-Forwarded-For} list: the ones written
   * by trusted proxies; entries further left could be forged by the client. {@code null} if none.
   */
  static String lastEntries(String list, int n) {
    if (list == null || list.isBlank()) {
      return null;
    }
    String[] parts = list.split(",");
    StringBuilder out = new StringBuilder();
    for (int i = Math.max(0, parts.length - n); i < parts.length; i++) {
      String p = parts[i].strip();
      if (!p.isEmpty()) {
        out.append(out.length() == 0 ? "" : ", ").append(p);
      }
    }
    return out.length() == 0 ? null : out.toString();
  }

  /** Whether any field name contains an underscore (nginx and Envoy drop or reject those). */
  static boolean hasUnderscoreName(HttpHeaders headers) {
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
      if (AsciiString.indexOf(it.next().getKey(), '_', 0) >= 0) {
        return true;
      }
    }
    return false;
  }

  private static boolean isOneOf(CharSequence name, String[] names) {
    for (String n : names) {
      if (n.length() == name.length() && AsciiString.contentEqualsIgnoreCase(n, name)) {
        return true;
      }
    }
    return false;
  }

  private static boolean equalsIgnoreCase(CharSequence name, String lower) {
    return name.length() == lower.length() && AsciiString.contentEqualsIgnoreCase(name, lower);
  }

  private static boolean startsWith(CharSequence name, String lowerPrefix) {
    return name.length() >= lowerPrefix.length() && AsciiString.regionMatches(name, true, 0, lowerPrefix, 0,
        lowerPrefix.length());
  }

  /** Whether {@code name} is one of the comma-separated tokens of a {@code Connection} value. */
  static boolean listedIn(String connection, CharSequence name) {
    if (connection == null) {
      return false;
    }
    int len = connection.length();
    int start = 0;
    while (start < len) {
      int comma = connection.indexOf(',', start);
      int end = comma < 0 ? len : comma;
      int s = start;
      int e = end;
      while (s < e && (connection.charAt(s) == ' ' || connection.charAt(s) == '\t')) {
        s++;
      }
      while (e > s && (connection.charAt(e - 1) == ' ' || connection.charAt(e - 1) == '\t')) {
        e--;
      }
      if (e - s == name.length() && AsciiString.regionMatches(connection, true, s, name, 0, name.length())) {
        return true;
      }
      start = end + 1;
    }
    return false;
  }

  /**
   * A comma-separated list without the entries naming {@code token} (in any case, with or
   * without a {@code /version}): {@code "h2c, websocket"} without {@code h2c} is
   * {@code "websocket"}; {@code null} when nothing is left.
   */
  static String withoutToken(String list, String token) {
    StringBuilder kept = new StringBuilder(list.length());
    for (String entry : list.split(",")) {
      String e = entry.strip();
      int slash = e.indexOf('/');
      String name = slash < 0 ? e : e.substring(0, slash).strip();
      if (e.isEmpty() || name.equalsIgnoreCase(token)) {
        continue;
      }
      if (kept.length() > 0) {
        kept.append(", ");
      }
      kept.append(e);
    }
    return kept.length() == 0 ? null : kept.toString();
  }
}
