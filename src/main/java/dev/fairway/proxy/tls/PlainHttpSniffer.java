package dev.fairway.proxy.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.charset.StandardCharsets;

/**
 * First in a TLS connection's pipeline: looks at the first byte the client sends. A TLS record
 * starts with its content type (22 for the ClientHello), never with a letter; an HTTP request
 * starts with its method's capital letters. So a letter gets a cleartext {@code 400} and a close,
 * as nginx answers "plain HTTP request sent to HTTPS port"; anything else goes on to the TLS
 * handler (which closes on garbage), and this handler leaves the pipeline.
 *
 * <p>Example: {@code GET / HTTP/1.1} on port 8443 reads
 * {@code HTTP/1.1 400 Bad Request ... plain HTTP request sent to the TLS port}; bytes
 * {@code 16 03 01 ...} go on to the handshake, with a {@link HandshakeMeter} placed after it.
 */
final class PlainHttpSniffer extends ChannelInboundHandlerAdapter {
  static final String NAME = "fairway-tls-sniffer";
  private static final byte[] BAD_REQUEST = ("HTTP/1.1 400 Bad Request\r\n"
      + "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 40\r\nConnection: close\r\n\r\n"
      + "plain HTTP request sent to the TLS port\n").getBytes(StandardCharsets.US_ASCII);

  private final TlsMeters meters;
  private final String tlsHandler;

  /** @param tlsHandler the name of the SNI/TLS handler this one comes before */
  PlainHttpSniffer(TlsMeters meters, String tlsHandler) {
    this.meters = meters;
    this.tlsHandler = tlsHandler;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf in) || !in.isReadable()) {
      ctx.fireChannelRead(msg);
      return;
    }
    byte first = in.getByte(in.readerIndex());
    if (first >= 'A' && first <= 'Z') {
      in.release();
      meters.plaintext();
      ctx.channel().config().setAutoRead(false);
      ctx.writeAndFlush(Unpooled.wrappedBuffer(BAD_REQUEST)).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    ctx.pipeline().addAfter(tlsHandler, HandshakeMeter.NAME, new HandshakeMeter(meters));
    ctx.pipeline().remove(this);
    ctx.fireChannelRead(in);
  }
}
