package dev.fairway.proxy.wire;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * The RFC 7239 {@code Forwarded} field a backend gets: the trusted tail of the client's list, then
 * one element for this hop ({@code for}, {@code proto}, {@code host}).
 *
 * <p>Example: a TLS client at 2001:db8::7 asking for {@code api.example:8443}, with no trusted hop,
 * gives {@code forwarded(null, "2001:db8::7", true, "api.example:8443", 0)} =
 * {@code for="[2001:db8::7]";proto=https;host="api.example:8443"}; an IPv4 client on port 80 gives
 * {@code for=10.0.0.7;proto=http;host=api.example}. With {@code trustedHops} 1 and a prior
 * {@code for=6.6.6.6, for=10.0.0.1} the last element is kept in front: {@code for=10.0.0.1, for=...}.
 */
public final class ForwardedElement {
  private static final byte[] FOR = ascii("for=");
  private static final byte[] PROTO_HTTP = ascii(";proto=http");
  private static final byte[] PROTO_HTTPS = ascii(";proto=https");
  private static final byte[] HOST = ascii(";host=");

  private ForwardedElement() {
  }

  /**
   * The backend's {@code Forwarded} value, under the same trust rule as {@code X-Forwarded-For}.
   *
   * @param prior     the client's {@code Forwarded} values, comma-joined; {@code null} if none
   * @param authority the client's {@code Host}, or {@code null} (then no {@code host=})
   */
  public static String forwarded(String prior, String client, boolean tls, String authority, int trustedHops) {
    StringBuilder e = new StringBuilder(64).append("for=").append(node(client))
        .append(";proto=").append(tls ? "https" : "http");
    if (authority != null) {
      e.append(";host=").append(value(authority));
    }
    String kept = trustedHops == 0 ? null : Headers.lastEntries(prior, trustedHops);
    return kept == null ? e.toString() : kept + ", " + e;
  }

  /**
   * Appends the backend's {@code Forwarded} field line, what {@link #forwarded} makes, without
   * building the value as a string when no trusted hop's elements are kept (the usual case).
   */
  static void write(ByteBuf out, String prior, String client, boolean tls, String authority, int trustedHops) {
    if (trustedHops > 0 && prior != null) {
      FieldLines.write(out, FieldLines.FORWARDED, forwarded(prior, client, tls, authority, trustedHops));
      return;
    }
    out.writeBytes(FieldLines.FORWARDED).writeBytes(FOR);
    FieldLines.value(out, node(client));
    out.writeBytes(tls ? PROTO_HTTPS : PROTO_HTTP);
    if (authority != null) {
      out.writeBytes(HOST);
      FieldLines.value(out, value(authority));
    }
    FieldLines.end(out);
  }

  /** A node: IPv6 in brackets and quoted (RFC 7239 §6), IPv4 and {@code unknown} bare. */
  static String node(String address) {
    return address.indexOf(':') >= 0 ? "\"[" + address + "]\"" : value(address);
  }

  /** A token as it is, anything else as a quoted string (RFC 9110 §5.6.4). */
  static String value(String v) {
    if (HeadCheck.isToken(v)) {
      return v;
    }
    StringBuilder q = new StringBuilder(v.length() + 2).append('"');
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '"' || c == '\\') {
        q.append('\\');
      }
      q.append(c);
    }
    return q.append('"').toString();
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
