package dev.fairway.proxy.wire;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Applies the {@link ForwardingRules} to a decoded header map, in place, and reads the
 * {@code Connection} field's tokens.
 *
 * <p>Example: a request with {@code Connection: close, X-Trace} and {@code X-Trace: 1} reaches the
 * backend with neither field, with {@code X-Forwarded-For: 127.0.0.1} and {@code Via: 1.1 fairway}.
 * With {@code trustedHops} 0 a client's own {@code X-Forwarded-For: 6.6.6.6} is replaced, not
 * extended; with 1 it is kept and the peer appended ({@code 6.6.6.6, 127.0.0.1}). A field named
 * {@code x_user} is dropped (unless the listener rejects such requests outright).
 */
public final class Headers {
  private Headers() {
  }

  /**
   * Turns the client's request fields into the backend's, in place, by the {@link ForwardingRules}.
   *
   * @param client    the client's address ({@code X-Forwarded-For})
   * @param tls       whether the client connection is TLS ({@code X-Forwarded-Proto})
   * @param authority the client's {@code Host}, or {@code null} ({@code X-Forwarded-Host})
   * @param via       what to add to {@code Via}: {@link ForwardingRules#VIA_TOKEN} or {@link ForwardingRules#VIA_TOKEN_H2}
   */
  public static void toBackend(HttpHeaders h, String client, boolean tls, String authority, int trustedHops, String via) {
    String connection = connectionValue(h);
    PriorFields prior = new PriorFields();
    List<CharSequence> drop = null;
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence(); it.hasNext(); ) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      if (prior.note(ForwardingRules.request(e.getKey(), connection), e.getValue())) {
        drop = drop(drop, e.getKey());
      }
    }
    removeAll(h, drop);
    prior.forward(PriorFields.Names.HTTP1, h::set, client, tls, authority, trustedHops, via);
  }

  /** Turns the backend's response fields into the client's, in place, by the {@link ForwardingRules}. */
  public static void toClient(HttpHeaders h) {
    String connection = connectionValue(h);
    String priorVia = null;
    List<CharSequence> drop = null;
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence(); it.hasNext(); ) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      ForwardingRules.Rule rule = ForwardingRules.response(e.getKey(), connection);
      if (rule == ForwardingRules.Rule.PRIOR_VIA) {
        priorVia = ForwardingRules.append(priorVia, e.getValue().toString());
      }
      if (rule != ForwardingRules.Rule.KEEP) {
        drop = drop(drop, e.getKey());
      }
    }
    removeAll(h, drop);
    h.set(PriorFields.Names.HTTP1.via(), ForwardingRules.viaValue(priorVia, ForwardingRules.VIA_TOKEN));
  }

  /** Notes a field to remove once the walk over the fields is over. */
  static List<CharSequence> drop(List<CharSequence> drop, CharSequence name) {
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
  public static String connectionValue(HttpHeaders headers) {
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
  public static boolean hasUnderscoreName(HttpHeaders headers) {
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
      if (AsciiString.indexOf(it.next().getKey(), '_', 0) >= 0) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code token} is one of the comma-separated tokens of a {@code Connection} value, in any case. */
  public static boolean listedIn(String connection, AsciiString token) {
    return HeadBytes.listedIn(connection, token.array(), token.arrayOffset(), token.length());
  }

  /**
   * A comma-separated list without the entries naming {@code token} (in any case, with or
   * without a {@code /version}): {@code "h2c, websocket"} without {@code h2c} is
   * {@code "websocket"}; {@code null} when nothing is left.
   */
  public static String withoutToken(String list, String token) {
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
