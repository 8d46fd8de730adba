package dev.fairway.proxy.wire;

/**
 * What earlier hops wrote in a request's forwarding fields, gathered field by field as a head's
 * fields are walked, and what the backend's forwarding fields become from it (the
 * {@link ForwardingRules}); for the shapes whose fields are decoded (a header map, an HTTP/2 block).
 *
 * <p>Example: after {@code note(PRIOR_FOR, "6.6.6.6")} and {@code note(PRIOR_FOR, "10.0.0.1")},
 * {@code xForwardedFor("127.0.0.1", 1)} is {@code "10.0.0.1, 127.0.0.1"}; {@code note(KEEP, ...)}
 * is false (the field stays), every other rule true (it goes).
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

  String xForwardedFor(String client, int trustedHops) {
    return ForwardingRules.xForwardedFor(forList, client, trustedHops);
  }

  String xForwardedProto(boolean tls, int trustedHops) {
    return ForwardingRules.xForwardedProto(proto, tls, trustedHops);
  }

  /** {@code null}: no {@code X-Forwarded-Host}. */
  String xForwardedHost(String authority, int trustedHops) {
    return ForwardingRules.xForwardedHost(host, authority, trustedHops);
  }

  String forwarded(String client, boolean tls, String authority, int trustedHops) {
    return ForwardedElement.forwarded(forwarded, client, tls, authority, trustedHops);
  }

  /** The earlier hops' {@code Via} list, or {@code null}. */
  String via() {
    return via;
  }
}
