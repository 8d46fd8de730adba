package dev.fairway.proxy.wire;

import dev.fairway.config.HeaderEdit;
import dev.fairway.config.RequestFields;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;

/**
 * A client's request head as the exchange sees it, whichever shape it came in: the bytes of a
 * bodiless request ({@link RawRequest}), Netty's decoded head ({@link DecodedRequest}) or an
 * HTTP/2 stream's header block ({@link H2Request}). Each forwarding rule is applied by
 * {@link ForwardingRules}, the same for every shape.
 *
 * <p>Example: {@code GET /a HTTP/1.1} with {@code Host: shop} from 10.0.0.7 is prepared with
 * {@code toBackend("10.0.0.7", "shop", 0, "10.0.0.9:8080", "1.1 fairway", alloc)} and written with
 * {@link #writeTo}: the backend reads {@code X-Forwarded-For: 10.0.0.7}, {@code Via: 1.1 fairway}
 * and {@code Host: shop}.
 */
public interface ClientRequest extends RequestFields {
  HttpMethod method();

  /** The request target as it came. */
  String uri();

  /** HTTP/1.0 or HTTP/1.1: what the client spoke (an HTTP/2 stream's request says HTTP/1.1). */
  HttpVersion version();

  /** Whether the client keeps its connection after this request. */
  boolean keepAlive();

  /** The {@code Host} field's value, or {@code null}. */
  String host();

  /** The first value of the field {@code lowerName}, or {@code null} (for routing and the access log). */
  @Override
  String field(String lowerName);

  /** Whether it is a gRPC call ({@code content-type: application/grpc} or {@code application/grpc+...}). */
  boolean grpc();

  /** The {@code grpc-timeout} field's value, or {@code null}. */
  String grpcTimeout();

  /**
   * The backend's head carries {@code lowerName: value} instead of the client's fields of that
   * name ({@code null}: none of them), such as what is left of the deadline in
   * {@code grpc-timeout}; takes effect at the next {@link #toBackend}.
   */
  void forwardField(String lowerName, String value);

  /** The backend's request line carries {@code target} instead of the client's ({@link #uri} stays the client's). */
  void forwardTarget(String target);

  /**
   * The backend's head gets the service's {@code requestHeaders} edit (not empty), applied after
   * the {@link ForwardingRules} ({@link FieldEdits}); takes effect at the next {@link #toBackend}.
   */
  void editFields(HeaderEdit edit);

  /** Whether a body follows the head (RFC 9112 §6.3: only a framing field says so). */
  boolean hasBody();

  /** Whether the head is the whole request; else its end comes as a last body part, even when empty. */
  boolean endsWithHead();

  /** What {@code Upgrade} asks of the backend, without {@code h2c}; {@code null}: no upgrade. */
  String upgradeTo();

  /** Whether the client waits for {@code 100 Continue} before it sends the body. */
  boolean expectContinue();

  /** Whether a field name has an underscore (nginx and Envoy drop or reject those). */
  boolean hasUnderscoreName();

  /**
   * Turns the head into the backend's ({@link ForwardingRules}); called again for a retry, when
   * only {@code fallbackHost} may differ.
   *
   * @param client       the client's address ({@code X-Forwarded-For})
   * @param tls          whether the client connection is TLS ({@code X-Forwarded-Proto: https})
   * @param authority    the client's {@code Host} (or absolute-form authority), or {@code null}
   * @param trustedHops  how many {@code X-Forwarded-*} hops before Fairway are trusted
   * @param fallbackHost the {@code Host} sent when the client named none: the backend's address
   * @param via          what to add to {@code Via}
   */
  void toBackend(String client, boolean tls, String authority, int trustedHops, String fallbackHost, String via,
                 ByteBufAllocator alloc);

  /**
   * Writes the backend's head to a backend connection: past the encoder ({@code wire}) when it is
   * bytes already, through it ({@code ch}) when decoded.
   *
   * @return whether the request is complete with it (no body follows)
   */
  boolean writeTo(Channel ch, ChannelHandlerContext wire);

  /**
   * Writes the backend's head (made by {@link #toBackend}) to an HTTP/2 stream to a backend, as a
   * HEADERS frame or Netty's {@code HttpRequest} that the stream turns into one; with
   * {@code te: trailers} if the client asked for trailers (gRPC does); flushed when it is the
   * whole request, as by {@link #writeTo}.
   *
   * @return whether the request is complete with it (no body follows)
   */
  boolean writeToStream(StreamWriter stream);

  /** Lets go of what the backend's head holds; the exchange is over. */
  void release();
}
