package dev.fairway.proxy.upstream;

import dev.fairway.proxy.wire.Failure;
import dev.fairway.proxy.wire.Rejection;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.Iterator;
import java.util.Map;

/**
 * Refuses what an HTTP/2 backend's response carries that an HTTP/1.1 head could not: field values
 * (or trailer values) with control characters other than HTAB. HPACK lets any octet through, and
 * such a value relayed to an HTTP/1.1 client would split its response; the frame codec has
 * checked the field names already. Sits in a stream's pipeline before its {@link Upstream}.
 *
 * <p>Example: {@code x-note: a\r\nset-cookie: evil} from an {@code h2c://} backend makes the
 * stream fail with a {@link Rejection} of {@link Failure#BAD_RESPONSE}: the client gets 502,
 * never the injected line.
 */
final class H2ResponseCheck extends ChannelInboundHandlerAdapter {
  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof HttpResponse r && !clean(r.headers())
        || msg instanceof LastHttpContent last && !clean(last.trailingHeaders())) {
      ReferenceCountUtil.release(msg);
      ctx.fireExceptionCaught(new Rejection(Failure.BAD_RESPONSE));
      return;
    }
    ctx.fireChannelRead(msg);
  }

  /** Whether no value has a control character but HTAB (RFC 9110 §5.5, RFC 9113 §8.2.1). */
  static boolean clean(HttpHeaders h) {
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence(); it.hasNext(); ) {
      CharSequence v = it.next().getValue();
      for (int i = 0, n = v.length(); i < n; i++) {
        char c = v.charAt(i);
        if (c < 0x20 && c != '\t' || c == 0x7f) {
          return false;
        }
      }
    }
    return true;
  }
}
