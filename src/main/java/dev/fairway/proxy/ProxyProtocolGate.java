package dev.fairway.proxy;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol.AddressFamily;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One connection's wait for its PROXY protocol header, right behind Netty's decoder: the
 * connection's own handlers (TLS, HTTP, the {@link ClientConnection}) are not in the pipeline yet,
 * so nothing answers, times a request head or counts the connection before the header is in. When
 * the decoded header comes, its source goes on the channel ({@link ClientAddress#PROXIED}), the
 * handlers are added, they see the connection become active, and this gate and the decoder leave:
 * the bytes after the header go to them as they would without it.
 *
 * <p>Example: {@code PROXY TCP6 2001:db8::7 2001:db8::1 51000 443\r\n} makes the client
 * {@code 2001:db8::7}; a v2 {@code LOCAL} header (an L4 balancer's own health check) or v1
 * {@code PROXY UNKNOWN} keeps the socket's peer. A decoder error closes the connection as
 * {@code invalid}, silence past the timeout as {@code timeout}; a client that closes before its
 * header is complete (a TCP health check) is not counted.
 */
final class ProxyProtocolGate extends ChannelInboundHandlerAdapter {
  static final String NAME = "fairway-proxy-protocol";

  private final ProxyProtocol shared;
  private final Consumer<ChannelPipeline> rest;
  private ScheduledFuture<?> timer;
  /** Closed for a bad or missing header: what the decoder reports after that is not counted again. */
  private boolean rejected;

  ProxyProtocolGate(ProxyProtocol shared, Consumer<ChannelPipeline> rest) {
    this.shared = shared;
    this.rest = rest;
  }

  /** Held back until the header is in; the clock for it starts. */
  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    timer = ctx.executor().schedule(() -> reject(ctx, false), shared.timeoutMs(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof HAProxyMessage header)) {
      ctx.fireChannelRead(msg); // not expected: the decoder passes on nothing before its header
      return;
    }
    InetSocketAddress source;
    try {
      source = source(header);
    } finally {
      header.release();
    }
    if (rejected || !ctx.channel().isActive()) {
      return;
    }
    cancelTimer();
    if (source != null) {
      ctx.channel().attr(ClientAddress.PROXIED).set(source);
    }
    rest.accept(ctx.pipeline());
    ctx.fireChannelActive();
    ctx.pipeline().remove(this);
  }

  /** The client a {@code PROXY} header names over IPv4 or IPv6; {@code null} for {@code LOCAL} and {@code UNKNOWN}. */
  private static InetSocketAddress source(HAProxyMessage header) {
    AddressFamily family = header.proxiedProtocol().addressFamily();
    if (header.command() != HAProxyCommand.PROXY || header.sourceAddress() == null
        || family != AddressFamily.AF_IPv4 && family != AddressFamily.AF_IPv6) {
      return null;
    }
    InetAddress address = NetUtil.createInetAddressFromIpAddressString(header.sourceAddress());
    return address == null ? null : new InetSocketAddress(address, header.sourcePort());
  }

  /**
   * The decoder found no valid header (it has closed the connection already), or the socket
   * failed (a reset: closed, not counted).
   */
  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof DecoderException) {
      reject(ctx, true);
    } else {
      cancelTimer();
      ctx.close();
    }
  }

  /** Closed before the header was in: the handlers behind never started, so they are not told. */
  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancelTimer();
  }

  private void reject(ChannelHandlerContext ctx, boolean invalid) {
    if (rejected) {
      return;
    }
    rejected = true;
    cancelTimer();
    if (invalid) {
      shared.invalid();
    } else {
      shared.timedOut();
    }
    ctx.close();
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }
}
