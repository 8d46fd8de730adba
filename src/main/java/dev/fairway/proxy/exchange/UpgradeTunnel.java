package dev.fairway.proxy.exchange;

import dev.fairway.proxy.upstream.Upstream;
import dev.fairway.proxy.upstream.UpstreamPool;
import dev.fairway.proxy.wire.ForwardingRules;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;

/**
 * The raw byte relay an exchange becomes once the backend switches protocols ({@code 101}, e.g.
 * a WebSocket): the client's bytes go to the backend and the backend's to the client, each side
 * read no faster than the other takes it, until either side closes.
 *
 * <p>Example: a {@code GET /chat} with {@code Upgrade: websocket} answered {@code 101} is relayed
 * to the client minus Fairway's backend signals; both connections then lose their HTTP codecs and
 * a frame the backend sends reaches the client as the same bytes.
 */
final class UpgradeTunnel {
  private final Downstream conn;
  private final Channel backend;

  UpgradeTunnel(Downstream conn, Upstream u) {
    this.conn = conn;
    this.backend = u.socket(); // an HTTP/1.1 connection: upgrades never go to HTTP/2 streams
  }

  /** Relays the {@code 101} and turns both connections into byte pipes. */
  void open(HttpResponse switching) {
    switching.headers().remove(ForwardingRules.LAME_DUCK).remove(ForwardingRules.LOAD_METRICS).remove(ForwardingRules.LOAD_METRICS_BIN);
    switching.setProtocolVersion(HttpVersion.HTTP_1_1);
    conn.write(switching);
    conn.flush();
    conn.tunnelTo(backend);
    backend.pipeline().remove(UpstreamPool.DECODER);
    backend.pipeline().remove(UpstreamPool.ENCODER);
  }

  /** Bytes from the backend (or what its decoder still held): passed to the client as they are. */
  void fromUpstream(Object msg) {
    if (msg instanceof ByteBuf || msg instanceof HttpContent c && c.content().isReadable()) {
      conn.channel().write(msg instanceof HttpContent c ? c.content() : msg);
      if (!conn.channel().isWritable()) {
        backend.config().setAutoRead(false);
      }
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  /** The backend can take more: read the client again. */
  void upstreamWritable() {
    conn.resume(ReadPauses.TUNNEL);
  }

  /** Closes both sides once what was written to each is sent (a plain close would drop it). */
  void close(boolean backendAttached) {
    if (backendAttached) {
      closeAfterWrites(backend);
    }
    closeAfterWrites(conn.channel());
  }

  private static void closeAfterWrites(Channel ch) {
    ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }
}
