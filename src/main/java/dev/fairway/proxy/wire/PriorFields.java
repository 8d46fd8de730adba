package dev.fairway.proxy.wire;

import io.netty.util.AsciiString;
import java.util.function.BiConsumer;

/**
 * What earlier hops wrote in a request's forwarding fields, gathered field by field as a head's
 * fields are walked, and what the backend's forwarding fields become from it (the
 * {@link ForwardingRules}); for the shapes whose fields are decoded (a header map, an HTTP/2 block).
 *
 * <p>Example: after {@code note(PRIOR_FOR, "6.6.6.6")} and {@code note(PRIOR_FOR, "10.0.0.1")},
 * {@code forward(Names.HTTP1, h::set, "127.0.0.1", false, "shop", 1, VIA_TOKEN)} sets
 * {@code X-Forwarded-For: 10.0.0.1, 127.0.0.1} first; {@code note(KEEP, ...)} is false (the
 * field stays), every other rule true (it goes).
 */
final class PriorFields {
  private String forList;
  private String proto;
  private String host;
  private String via;
  private String forwarded;

  /** Keeps the value of a field that an earlier hop wrote; whether the field is left out (any rule but {@code KEEP}). */
  boolean note(ForwardingRules.Rule rule, CharSequence value) {
    switch (rule) {
      case KEEP -> {
        return false;
      }
      case PRIOR_FOR -> forList = ForwardingRules.append(forList, value.toString());
      case PRIOR_PROTO -> proto = value.toString();
      case PRIOR_HOST -> host = value.toString();
      case PRIOR_VIA -> via = ForwardingRules.append(via, value.toString());
      case PRIOR_FORWARDED -> forwarded = ForwardingRules.append(forwarded, value.toString());
      case DROP -> { }
    }
    return true;
  }

  /**
   * Sets the backend's forwarding fields, in this order: {@code X-Forwarded-For},
   * {@code X-Forwarded-Proto}, {@code X-Forwarded-Host} (unless there is none), {@code Forwarded},
   * {@code Via} with {@code via} appended; names as {@code names} spells them.
   */
  void forward(Names names, BiConsumer<CharSequence, CharSequence> set, String client, boolean tls, String authority,
               int trustedHops, String via) {
    set.accept(names.xForwardedFor(), ForwardingRules.xForwardedFor(forList, client, trustedHops));
    set.accept(names.xForwardedProto(), ForwardingRules.xForwardedProto(proto, tls, trustedHops));
    String h = ForwardingRules.xForwardedHost(host, authority, trustedHops);
    if (h != null) {
      set.accept(names.xForwardedHost(), h);
    }
    set.accept(names.forwarded(), ForwardedElement.forwarded(forwarded, client, tls, authority, trustedHops));
    set.accept(names.via(), ForwardingRules.viaValue(this.via, via));
  }

  /** The forwarding fields' names as one message shape spells them. */
  record Names(AsciiString xForwardedFor, AsciiString xForwardedProto, AsciiString xForwardedHost, AsciiString forwarded,
               AsciiString via) {
    /** HTTP/1.1 heads: capitalized, as Fairway writes them. */
    static final Names HTTP1 = of("X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded", "Via");
    /** HTTP/2 blocks: lower case (RFC 9113 §8.2.1). */
    static final Names HTTP2 = of("x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "forwarded", "via");

    private static Names of(String xff, String xfp, String xfh, String forwarded, String via) {
      return new Names(AsciiString.cached(xff), AsciiString.cached(xfp), AsciiString.cached(xfh), AsciiString.cached(forwarded),
          AsciiString.cached(via));
    }
  }
}
