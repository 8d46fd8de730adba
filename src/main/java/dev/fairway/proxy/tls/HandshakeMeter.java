package dev.fairway.proxy.tls;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.internal.tcnative.SSL;
import javax.net.ssl.SSLEngine;

/**
 * Sits right after the SNI/TLS handler of a TLS connection until its handshake ends, counts how
 * it ended (and whether it resumed a session), and keeps a failed handshake's exception from the
 * handlers behind it.
 *
 * <p>Example: a client that sends {@code 16 03 01 02 00} and a few bytes of a ClientHello, then
 * closes, never completes: {@code channelInactive} counts one failure. A client whose handshake
 * completes counts one handshake, and this handler leaves the pipeline; when that client came back
 * with {@code openssl s_client -sess_in} (or a JDK client reusing its {@code SSLContext}), it also
 * counts one resumed handshake.
 */
final class HandshakeMeter extends ChannelInboundHandlerAdapter {
  static final String NAME = "fairway-tls-meter";
  private final TlsMeters meters;
  /** When the ClientHello's first bytes arrived: a JDK session created before then was resumed. */
  private final long startMillis = System.currentTimeMillis();
  private boolean counted;

  HandshakeMeter(TlsMeters meters) {
    this.meters = meters;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent e) {
      if (e.isSuccess()) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        count(true, ssl != null && resumed(ssl.engine(), startMillis));
        ctx.fireUserEventTriggered(evt);
        ctx.pipeline().remove(this);
        return;
      }
      count(false, false);
      ctx.close();
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    count(false, false); // the handshake did not complete: nothing behind this handler has a request yet
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    count(false, false);
    ctx.fireChannelInactive();
  }

  /**
   * Whether the just-completed handshake resumed a session: OpenSSL (BoringSSL) says so itself
   * ({@code SSL_session_reused}); the JDK's engine hands back the cached session, created before
   * this handshake started.
   */
  static boolean resumed(SSLEngine engine, long handshakeStartMillis) {
    if (engine instanceof ReferenceCountedOpenSslEngine openSsl) {
      long pointer = openSsl.sslPointer();
      return pointer != 0 && SSL.isSessionReused(pointer);
    }
    return engine.getSession().getCreationTime() < handshakeStartMillis;
  }

  private void count(boolean success, boolean resumed) {
    if (counted) {
      return;
    }
    counted = true;
    if (success) {
      meters.handshake(resumed);
    } else {
      meters.failure();
    }
  }
}
