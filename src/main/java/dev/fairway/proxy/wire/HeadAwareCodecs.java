package dev.fairway.proxy.wire;

import dev.fairway.config.EdgeLimits;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequestDecoder;
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
public final class HeadAwareCodecs {
  /** Netty's heads check field names and values again, as a second line behind {@link HeadCheck}. */
  private static final DefaultHttpHeadersFactory VALIDATING = DefaultHttpHeadersFactory.headersFactory()
      .withValidation(true);
  private static final DefaultHttpHeadersFactory VALIDATING_TRAILERS = DefaultHttpHeadersFactory.trailersFactory()
      .withValidation(true);

  private HeadAwareCodecs() {
  }

  /** The decoder of a client connection's requests; the {@link FramingGuard} before it enforces the limits first. */
  public static HttpRequestDecoder requestDecoder(EdgeLimits limits) {
    return new HttpRequestDecoder(new HttpDecoderConfig()
        .setMaxInitialLineLength(limits.maxRequestLineBytes() + 64)
        .setMaxHeaderSize(limits.maxHeaderBytes() + 1024)
        .setMaxChunkSize(64 * 1024)
        .setHeadersFactory(VALIDATING)
        .setTrailersFactory(VALIDATING_TRAILERS));
  }

  /** The decoder of a backend connection's responses (heads up to {@link FrameScanner#MAX_RESPONSE_HEAD}). */
  public static ResponseDecoder responseDecoder() {
    return new ResponseDecoder(new HttpDecoderConfig()
        .setMaxHeaderSize(FrameScanner.MAX_RESPONSE_HEAD)
        .setMaxInitialLineLength(FrameScanner.MAX_RESPONSE_HEAD)
        .setHeadersFactory(VALIDATING)
        .setTrailersFactory(VALIDATING_TRAILERS));
  }

  /** Encodes the responses to a client's requests. */
  public static final class ResponseEncoder extends HttpResponseEncoder {
    private boolean head;

    /** The response about to be written answers a {@code HEAD} request. */
    public void answeringHead(boolean head) {
      this.head = head;
    }

    @Override
    protected boolean isContentAlwaysEmpty(HttpResponse msg) {
      return head || super.isContentAlwaysEmpty(msg);
    }
  }

  /** Decodes a backend's responses. */
  public static final class ResponseDecoder extends HttpResponseDecoder {
    private boolean head;

    public ResponseDecoder(HttpDecoderConfig config) {
      super(config);
    }

    /** The next response answers a {@code HEAD} request. */
    public void expectResponseTo(boolean head) {
      this.head = head;
    }

    @Override
    protected boolean isContentAlwaysEmpty(HttpMessage msg) {
      return head || super.isContentAlwaysEmpty(msg);
    }
  }
}
