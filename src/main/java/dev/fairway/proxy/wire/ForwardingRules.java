package dev.fairway.proxy.wire;

import dev.fairway.balancer.OrcaBinary;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The rules a message's fields follow across the proxy, in one place for every shape a message
 * comes in (a decoded header map, a head's bytes, HTTP/2 fields): which fields are dropped
 * (hop-by-hop ones, RFC 9110 §7.6.1, those named in {@code Connection}, names with an underscore,
 * the backend signals Fairway consumes), which earlier forwarding values are read, and what
 * {@code X-Forwarded-*}, {@code Forwarded} ({@link ForwardedElement}) and {@code Via} become.
 *
 * <p>Example: with {@code trustedHops} 1, a request with {@code X-Forwarded-For: 6.6.6.6, 10.0.0.1}
 * from 127.0.0.1 gets {@code xForwardedFor("6.6.6.6, 10.0.0.1", "127.0.0.1", 1)} =
 * {@code "10.0.0.1, 127.0.0.1"}; with 0 just {@code "127.0.0.1"}. {@code request("Keep-Alive")} is
 * {@link Rule#DROP}, {@code request("Via")} is {@link Rule#PRIOR_VIA}, {@code request("Accept")}
 * is {@link Rule#KEEP}.
 */
public final class ForwardingRules {
  /** What Fairway adds to {@code Via} for a request or response it relays over HTTP/1.1. */
  public static final String VIA_TOKEN = "1.1 fairway";
  /** What Fairway adds to {@code Via} for a request it received over HTTP/2 (RFC 9110 §7.6.3). */
  public static final String VIA_TOKEN_H2 = "2 fairway";
  public static final String LAME_DUCK = "lame-duck";
  public static final String LOAD_METRICS = "endpoint-load-metrics";
  public static final String LOAD_METRICS_BIN = OrcaBinary.HEADER;

  /** Hop-by-hop field names (RFC 9110 §7.6.1), with Host and Expect, which Fairway sets or answers itself. */
  private static final String[] HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
    "te", "trailer", "transfer-encoding", "upgrade", "host", "expect"
  };
  private static final String[] BACKEND_SIGNALS = {LAME_DUCK, LOAD_METRICS, LOAD_METRICS_BIN};
  /**
   * Fields that must never come as trailers (RFC 9110 §6.5.1: framing, routing, authentication,
   * request modifiers, response control), and Fairway's backend signals, read first: dropped from trailers either way. The rest (gRPC's
   * {@code grpc-status}, {@code grpc-message}, checksums, ...) are passed on.
   */
  private static final String[] NEVER_TRAILERS = {
    "content-length", "content-type", "content-encoding", "content-range", "transfer-encoding", "host", "te",
    "trailer", "connection", "keep-alive", "proxy-connection", "upgrade", "expect", "authorization",
    "proxy-authorization", "proxy-authenticate", "www-authenticate", "cookie", "set-cookie", "range",
    "max-forwards", "cache-control", "age", "expires", "date", "location", "retry-after", "vary", "pragma",
    "via", "forwarded", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", LAME_DUCK, LOAD_METRICS, LOAD_METRICS_BIN
  };
  private static final AsciiString TRAILERS = AsciiString.cached("trailers");
  private static final AsciiString VIA_VALUE = AsciiString.cached(VIA_TOKEN);

  /** What becomes of one field. */
  public enum Rule {
    /** Passed on as it is. */
    KEEP,
    /** Left out. */
    DROP,
    /** Left out; its value is an earlier hop's {@code X-Forwarded-For} list. */
    PRIOR_FOR,
    /** Left out; its value is an earlier hop's {@code X-Forwarded-Proto}. */
    PRIOR_PROTO,
    /** Left out; its value is an earlier hop's {@code X-Forwarded-Host}. */
    PRIOR_HOST,
    /** Left out; its value is an earlier hop's {@code Via} list. */
    PRIOR_VIA,
    /** Left out; its value is an earlier hop's {@code Forwarded} list (RFC 7239). */
    PRIOR_FORWARDED
  }

  private ForwardingRules() {
  }

  /**
   * What becomes of the request field named {@code h[s, s + n)} on its way to the backend.
   *
   * @param connection the request's {@code Connection} values, comma-joined; {@code null} if none
   */
  public static Rule request(byte[] h, int s, int n, String connection) {
    if (HeadBytes.isOneOf(h, s, n, HOP_BY_HOP) || HeadBytes.indexOf(h, (byte) '_', s, s + n) < s + n
        || HeadBytes.listedIn(connection, h, s, n)) {
      return Rule.DROP;
    }
    if (n == 3 && HeadBytes.nameIs(h, s, "via")) {
      return Rule.PRIOR_VIA;
    }
    if (n == 9 && HeadBytes.nameIs(h, s, "forwarded")) {
      return Rule.PRIOR_FORWARDED;
    }
    if (n < 12 || !HeadBytes.nameIs(h, s, "x-forwarded-")) {
      return Rule.KEEP;
    }
    if (n == 15 && HeadBytes.nameIs(h, s, "x-forwarded-for")) {
      return Rule.PRIOR_FOR;
    }
    if (n == 17 && HeadBytes.nameIs(h, s, "x-forwarded-proto")) {
      return Rule.PRIOR_PROTO;
    }
    return n == 16 && HeadBytes.nameIs(h, s, "x-forwarded-host") ? Rule.PRIOR_HOST : Rule.DROP;
  }

  /** {@link #request(byte[], int, int, String)} for a decoded field name. */
  public static Rule request(CharSequence name, String connection) {
    AsciiString a = ascii(name);
    return request(a.array(), a.arrayOffset(), a.length(), connection);
  }

  /** What becomes of the response field named {@code h[s, s + n)} on its way to the client. */
  public static Rule response(byte[] h, int s, int n, String connection) {
    if (HeadBytes.isOneOf(h, s, n, HOP_BY_HOP) || HeadBytes.isOneOf(h, s, n, BACKEND_SIGNALS)
        || HeadBytes.listedIn(connection, h, s, n)) {
      return Rule.DROP;
    }
    return n == 3 && HeadBytes.nameIs(h, s, "via") ? Rule.PRIOR_VIA : Rule.KEEP;
  }

  /** {@link #response(byte[], int, int, String)} for a decoded field name. */
  public static Rule response(CharSequence name, String connection) {
    AsciiString a = ascii(name);
    return response(a.array(), a.arrayOffset(), a.length(), connection);
  }

  /**
   * Keeps of a message's trailer fields those that may be trailers ({@link #NEVER_TRAILERS} and
   * pseudo-header names go), in place.
   *
   * <p>Example: trailers {@code grpc-status: 0, content-length: 5, host: evil} become
   * {@code grpc-status: 0}.
   */
  public static void trailers(HttpHeaders t) {
    if (t.isEmpty()) {
      return;
    }
    List<CharSequence> dropped = null; // rarely any: made only when one turns up
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = t.iteratorCharSequence(); it.hasNext(); ) {
      CharSequence n = it.next().getKey();
      if (neverTrailer(n)) {
        dropped = dropped == null ? new ArrayList<>(2) : dropped;
        dropped.add(n);
      }
    }
    if (dropped != null) {
      dropped.forEach(t::remove);
    }
  }

  /** Whether a field of this name is dropped from trailers: a pseudo-field, or one of {@link #NEVER_TRAILERS}. */
  public static boolean neverTrailer(CharSequence name) {
    AsciiString a = ascii(name);
    return a.isEmpty() || a.byteAt(0) == ':' || HeadBytes.isOneOf(a.array(), a.arrayOffset(), a.length(), NEVER_TRAILERS);
  }

  /**
   * Whether a request's {@code te} value lists {@code trailers}: then an HTTP/2 backend gets
   * {@code te: trailers}, the one {@code te} HTTP/2 allows (RFC 9113 §8.2.2), which gRPC requires.
   */
  public static boolean teTrailers(String te) {
    return te != null && Headers.listedIn(te, TRAILERS);
  }

  /**
   * The load report a response carries, as the balancer reads it: the {@code endpoint-load-metrics}
   * value, else {@code BIN } and the {@code endpoint-load-metrics-bin} value, else {@code null}.
   */
  public static String loadReport(String text, String binary) {
    return text != null ? text : OrcaBinary.tagged(binary);
  }

  /** A list with {@code value} appended ({@code null}: an empty list). */
  public static String append(String list, String value) {
    return list == null ? value : list + ", " + value;
  }

  /** The backend's {@code X-Forwarded-For}: the trusted tail of the earlier list, then the client. */
  public static String xForwardedFor(String prior, String client, int trustedHops) {
    String kept = trustedHops == 0 ? null : Headers.lastEntries(prior, trustedHops);
    return kept == null ? client : kept + ", " + client;
  }

  /** The backend's {@code X-Forwarded-Proto}: a trusted hop's, else {@code https} over TLS, else {@code http}. */
  public static String xForwardedProto(String prior, boolean tls, int trustedHops) {
    return trustedHops > 0 && prior != null ? prior : tls ? "https" : "http";
  }

  /** The backend's {@code X-Forwarded-Host}: a trusted hop's, else the client's authority; {@code null}: none. */
  public static String xForwardedHost(String prior, String authority, int trustedHops) {
    return trustedHops > 0 && prior != null ? prior : authority;
  }

  /** {@code Via} with Fairway's {@code token} appended. */
  public static String via(String prior, String token) {
    return prior == null ? token : prior + ", " + token;
  }

  /** {@link #via} as a decoded field's value: with no earlier hop, {@link #VIA_TOKEN} is one shared value, not a string per message. */
  public static CharSequence viaValue(String prior, String token) {
    return prior == null && token == VIA_TOKEN ? VIA_VALUE : via(prior, token);
  }

  private static AsciiString ascii(CharSequence name) {
    return name instanceof AsciiString a ? a : new AsciiString(name.toString().getBytes(StandardCharsets.ISO_8859_1), false);
  }
}
