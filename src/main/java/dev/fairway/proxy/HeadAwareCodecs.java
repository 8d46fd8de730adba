package dev.fairway.proxy;

import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;

/**
 * Netty's response encoder and decoder, told by Fairway whether the message at hand answers a
 * {@code HEAD} request (and so has no body whatever its framing fields say). Netty's server and
 * client codecs learn that from a queue of the methods they saw, which goes wrong once responses
 * can pass by them ({@link RawResponse}); here the one exchange a connection carries at a time sets
 * it.
 *
 * <p>Example: a client's {@code HEAD /} answered by Fairway itself with 503 gets the head with
 * {@code Content-Length: 28} and no body bytes.
 */
final class HeadAwareCodecs {
  private HeadAwareCodecs() {
  }

  /** Encodes the responses to a client's requests. */
  static final class ResponseEncoder extends HttpResponseEncoder {
    private boolean head;

    /** The response about to be written answers a {@code HEAD} request. */
    void answeringHead(boolean head) {
      this.head = head;
    }

    @Override
    protected boolean isContentAlwaysEmpty(HttpResponse msg) {
      return head || super.isContentAlwaysEmpty(msg);
    }
  }

  /** Decodes a backend's responses. */
  static final class ResponseDecoder extends HttpResponseDecoder {
    private boolean head;

    ResponseDecoder(HttpDecoderConfig config) {
      super(config);
    }

    /** The next response answers a {@code HEAD} request. */
    void expectResponseTo(boolean head) {
      this.head = head;
    }

    @Override
    protected boolean isContentAlwaysEmpty(HttpMessage msg) {
      return head || super.isContentAlwaysEmpty(msg);
    }
  }
}
