package dev.fairway.proxy.wire;

import io.netty.handler.codec.http2.Http2Headers;
import java.util.List;
import java.util.Map;

/**
 * Applies the {@link ForwardingRules} to an HTTP/2 header block, in place, as {@link Headers}
 * does to a header map: for a request from an HTTP/2 client to its backend, and for an HTTP/2
 * backend's response and trailers to an HTTP/2 client. Names are lower case; HTTP/2 has no
 * {@code Connection} field, so none names further fields to drop; pseudo-fields stay.
 *
 * <p>Example: a response block {@code :status 200, content-type text/plain, lame-duck true,
 * via 2 b} becomes {@code :status 200, content-type text/plain, via 2 b, 1.1 fairway}; trailers
 * {@code grpc-status 0, content-length 5} become {@code grpc-status 0}.
 */
public final class H2Rules {
  private H2Rules() {
  }

  /** The client's request block into the backend's, but for {@code :authority} and {@code :scheme}; see {@link Headers#toBackend}. */
  static void toBackend(Http2Headers h, String client, boolean tls, String authority, int trustedHops, String via) {
    PriorFields prior = new PriorFields();
    List<CharSequence> drop = null;
    for (Map.Entry<CharSequence, CharSequence> f : h) {
      CharSequence name = f.getKey();
      if (!pseudo(name) && prior.note(ForwardingRules.request(name, null), f.getValue())) {
        drop = Headers.drop(drop, name);
      }
    }
    removeAll(h, drop);
    prior.forward(PriorFields.Names.HTTP2, h::set, client, tls, authority, trustedHops, via);
  }

  /** A backend's response block into the client's; see {@link Headers#toClient}. */
  public static void toClient(Http2Headers h) {
    String priorVia = null;
    List<CharSequence> drop = null;
    for (Map.Entry<CharSequence, CharSequence> f : h) {
      CharSequence name = f.getKey();
      if (pseudo(name)) {
        continue;
      }
      ForwardingRules.Rule rule = ForwardingRules.response(name, null);
      if (rule == ForwardingRules.Rule.PRIOR_VIA) {
        priorVia = ForwardingRules.append(priorVia, f.getValue().toString());
      }
      if (rule != ForwardingRules.Rule.KEEP) {
        drop = Headers.drop(drop, name);
      }
    }
    removeAll(h, drop);
    h.set(PriorFields.Names.HTTP2.via(), ForwardingRules.viaValue(priorVia, ForwardingRules.VIA_TOKEN));
  }

  /** Keeps of trailers those that may be trailers; see {@link ForwardingRules#trailers}. */
  public static void trailers(Http2Headers t) {
    List<CharSequence> drop = null;
    for (Map.Entry<CharSequence, CharSequence> f : t) {
      if (ForwardingRules.neverTrailer(f.getKey())) {
        drop = Headers.drop(drop, f.getKey());
      }
    }
    removeAll(t, drop);
  }

  private static boolean pseudo(CharSequence name) {
    return name.length() > 0 && name.charAt(0) == ':';
  }

  private static void removeAll(Http2Headers h, List<CharSequence> names) {
    if (names != null) {
      for (int i = 0; i < names.size(); i++) {
        h.remove(names.get(i));
      }
    }
  }
}
