package dev.fairway.proxy;

import dev.fairway.config.EdgeLimits;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpHeaders;
import java.util.List;
import java.util.Map;

/**
 * Copies end-to-end header fields between the client and backend exchanges, dropping hop-by-hop
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
  static final String LAME_DUCK = "lame-duck";
  static final String LOAD_METRICS = "endpoint-load-metrics";

  private static final String[] HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
    "te", "trailer", "transfer-encoding", "upgrade", "host", "expect"
  };
  private static final String[] BACKEND_SIGNALS = {LAME_DUCK, LOAD_METRICS};

  private Headers() {
  }

  /** Copies the client's request fields to the backend request and adds the forwarding fields. */
  static void toBackend(HttpServerRequest req, MultiMap to, EdgeLimits limits) {
    MultiMap from = req.headers();
    int trusted = limits.trustedHops();
    String priorProto = null;
    String priorHost = null;
    String connection = connectionValue(from);
    String priorFor = null;
    String priorVia = null;
    for (Map.Entry<String, String> h : from) {
      String name = h.getKey();
      if (isOneOf(name, HOP_BY_HOP) || listedIn(connection, name) || name.indexOf('_') >= 0) {
        continue;
      }
      if (name.equalsIgnoreCase("x-forwarded-proto")) {
        priorProto = h.getValue();
        continue;
      }
      if (name.equalsIgnoreCase("x-forwarded-host")) {
        priorHost = h.getValue();
        continue;
      }
      if (name.equalsIgnoreCase("x-forwarded-for")) {
        priorFor = priorFor == null ? h.getValue() : priorFor + ", " + h.getValue();
        continue;
      }
      if (name.equalsIgnoreCase("via")) {
        priorVia = priorVia == null ? h.getValue() : priorVia + ", " + h.getValue();
        continue;
      }
      if (name.regionMatches(true, 0, "x-forwarded-", 0, 12)) {
        continue;
      }
      to.add(name, h.getValue());
    }
    String client = req.remoteAddress() == null ? "unknown" : req.remoteAddress().hostAddress();
    String kept = trusted == 0 ? null : lastEntries(priorFor, trusted);
    to.set("X-Forwarded-For", kept == null ? client : kept + ", " + client);
    to.set("X-Forwarded-Proto", trusted > 0 && priorProto != null ? priorProto : req.isSSL() ? "https" : "http");
    if (trusted > 0 && priorHost != null) {
      to.set("X-Forwarded-Host", priorHost);
    } else if (req.authority() != null) {
      to.set("X-Forwarded-Host", req.authority().toString());
    }
    to.set("Via", priorVia == null ? VIA_TOKEN : priorVia + ", " + VIA_TOKEN);
  }

  /** Copies the backend's response fields to the client response, minus hop-by-hop and signals. */
  static void toClient(MultiMap from, MultiMap to) {
    String connection = connectionValue(from);
    String priorVia = null;
    for (Map.Entry<String, String> h : from) {
      String name = h.getKey();
      if (isOneOf(name, HOP_BY_HOP) || isOneOf(name, BACKEND_SIGNALS) || listedIn(connection, name)) {
        continue;
      }
      if (name.equalsIgnoreCase("via")) {
        priorVia = priorVia == null ? h.getValue() : priorVia + ", " + h.getValue();
        continue;
      }
      to.add(name, h.getValue());
    }
    to.set("Via", priorVia == null ? VIA_TOKEN : priorVia + ", " + VIA_TOKEN);
  }

  /** The {@code Connection} field's tokens as one comma-separated value; {@code null} if absent. */
  static String connectionValue(MultiMap headers) {
    if (!headers.contains(HttpHeaders.CONNECTION)) {
      return null;
    }
    List<String> all = headers.getAll(HttpHeaders.CONNECTION);
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
  static boolean hasUnderscoreName(MultiMap headers) {
    for (String name : headers.names()) {
      if (name.indexOf('_') >= 0) {
        return true;
      }
    }
    return false;
  }

  private static boolean isOneOf(String name, String[] names) {
    for (String n : names) {
      if (n.length() == name.length() && n.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code name} is one of the comma-separated tokens of a {@code Connection} value. */
  static boolean listedIn(String connection, String name) {
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
      while (s < e && connection.charAt(s) == ' ' || s < e && connection.charAt(s) == '\t') {
        s++;
      }
      while (e > s && (connection.charAt(e - 1) == ' ' || connection.charAt(e - 1) == '\t')) {
        e--;
      }
      if (e - s == name.length() && connection.regionMatches(true, s, name, 0, name.length())) {
        return true;
      }
      start = end + 1;
    }
    return false;
  }
}
