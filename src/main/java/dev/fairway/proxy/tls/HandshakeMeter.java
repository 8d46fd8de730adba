package dev.fairway.proxy.tls;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

/**
 * Sits right after the SNI/TLS handler of a TLS connection until its handshake ends, counts how
 * it ended, and keeps a failed handshake's exception from the handlers behind it.
 *
 * <p>Example: a client that sends {@code 16 03 01 02 00} and a few bytes of a ClientHello, then
 * closes, never completes: {@code channelInactive} counts one failure. A client whose handshake
 * completes counts one handshake, and this handler leaves the pipeline.
 */
final class HandshakeMeter extends ChannelInboundHandlerAdapter {
  static final String NAME = "fairway-tls-meter";
  private final TlsMeters meters;
  private boolean counted;

  HandshakeMeter(TlsMeters meters) {
    this.meters = meters;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent e) {
      if (e.isSuccess()) {
        count(true);
        ctx.fireUserEventTriggered(evt);
        ctx.pipeline().remove(this);
        return;
      }
      count(false);
      ctx.close();
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    count(false); // the handshake did not complete: nothing behind this handler has a request yet
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    count(false);
    ctx.fireChannelInactive();
  }

  private void count(boolean success) {
    if (counted) {
      return;
    }
    counted = true;
    if (success) {
      meters.handshake();
    } else {
      meters.failure();
    }
  }
}
