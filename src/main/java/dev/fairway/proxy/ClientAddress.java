package dev.fairway.proxy;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.netty.util.NetUtil;
import java.net.InetSocketAddress;

/**
 * Where a client connection comes from, as every per-client use sees it ({@code X-Forwarded-For},
 * {@code Forwarded: for=}, the access log's {@code client}, {@code proxy.trustedHops}): the source
 * a PROXY protocol header named ({@link ProxyProtocolGate}), else the socket's peer.
 *
 * <p>Example: a connection from the L4 balancer 10.0.0.2 that opened with
 * {@code PROXY TCP4 203.0.113.7 10.0.0.1 51000 80} gives {@code of(channel)} = 203.0.113.7:51000
 * and {@code text(...)} = {@code "203.0.113.7"}; without a header, 10.0.0.2 and its port. IPv6
 * addresses come out in their short form ({@code "2001:db8::7"}, RFC 5952).
 */
final class ClientAddress {
  /** The source address a PROXY header named, set on the channel before its HTTP handlers start. */
  static final AttributeKey<InetSocketAddress> PROXIED = AttributeKey.valueOf("fairway.proxiedSource");

  private ClientAddress() {
  }

  /** The client's address and port, or {@code null} if the socket has no peer (closed already). */
  static InetSocketAddress of(Channel channel) {
    InetSocketAddress proxied = channel.attr(PROXIED).get();
    return proxied != null ? proxied : (InetSocketAddress) channel.remoteAddress();
  }

  /** The address as text, without the port; {@code "unknown"} for {@code null}. */
  static String text(InetSocketAddress address) {
    return address == null ? "unknown" : NetUtil.toAddressString(address.getAddress());
  }
}
