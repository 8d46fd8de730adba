package dev.fairway.proxy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import java.util.function.Consumer;

/**
 * {@code proxy.acceptProxyProtocol}: every connection of the proxy's listeners (cleartext and TLS)
 * must open with a PROXY protocol header (HAProxy's spec, v1 text or v2 binary), as an L4 balancer
 * in front of Fairway sends it, so that Fairway sees the client's address instead of the
 * balancer's. Netty's {@link HAProxyMessageDecoder} reads the header; a {@link ProxyProtocolGate}
 * behind it holds the connection's own handlers back until the header is in. A connection that
 * sends something else, or no whole header within {@code proxy.requestHeadersTimeoutMs}, is closed
 * without an answer and counted in {@code fairway_proxy_protocol_rejected_total{reason}}.
 *
 * <p>Example: {@code new ProxyProtocol(registry, 10_000).install(child.pipeline(), rest)} on an
 * accepted connection; the client sends {@code PROXY TCP4 203.0.113.7 10.0.0.1 51000 80\r\n} and
 * {@code GET / HTTP/1.1 ...}: {@code rest} adds the HTTP (or TLS) handlers, which see only the
 * request, and its backend gets {@code X-Forwarded-For: 203.0.113.7}. {@code GET / HTTP/1.1} on its
 * own is closed, and {@code reason="invalid"} goes up by one.
 */
public final class ProxyProtocol {
  /**
   * Largest v2 TLV block accepted: far above what AWS, Google Cloud, Azure or HAProxy send (a few
   * dozen bytes to a client certificate's names), and it bounds what a connection may make
   * Fairway buffer before its header is complete.
   */
  static final int MAX_TLV_BYTES = 8 * 1024;
  private static final String DECODER = "fairway-proxy-protocol-decoder";

  private final long timeoutMs;
  private final Counter invalid;
  private final Counter timedOut;

  /** @param timeoutMs how long a connection may take to send its whole header */
  public ProxyProtocol(MeterRegistry registry, long timeoutMs) {
    this.timeoutMs = timeoutMs;
    this.invalid = rejected(registry, "invalid");
    this.timedOut = rejected(registry, "timeout");
  }

  private static Counter rejected(MeterRegistry registry, String reason) {
    return Counter.builder("fairway_proxy_protocol_rejected")
        .description("Connections closed unanswered because they did not open with a valid PROXY protocol header"
            + " (invalid) or not within proxy.requestHeadersTimeoutMs (timeout)")
        .tag("reason", reason).register(registry);
  }

  /**
   * Puts the decoder and the gate at the pipeline's end, now empty but for them.
   *
   * @param rest adds the connection's own handlers once the header is in
   */
  void install(ChannelPipeline p, Consumer<ChannelPipeline> rest) {
    p.addLast(DECODER, new HAProxyMessageDecoder(MAX_TLV_BYTES));
    p.addLast(ProxyProtocolGate.NAME, new ProxyProtocolGate(this, rest));
  }

  long timeoutMs() {
    return timeoutMs;
  }

  void invalid() {
    invalid.increment();
  }

  void timedOut() {
    timedOut.increment();
  }
}
