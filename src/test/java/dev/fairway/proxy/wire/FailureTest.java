package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import java.net.ConnectException;
import java.util.stream.Stream;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** A backend connection's TLS failure is a 502 of its own, with the TLS error as the access-log reason. */
class FailureTest {
  private static final SSLHandshakeException PKIX = new SSLHandshakeException("PKIX path building failed");

  @Test
  void aTlsFailureIs502AndAnyOtherConnectFailureStays503() {
    assertThat(Failure.ofConnect(PKIX)).isEqualTo(Failure.BACKEND_TLS);
    assertThat(Failure.ofConnect(new DecoderException(PKIX))).isEqualTo(Failure.BACKEND_TLS);
    assertThat(Failure.BACKEND_TLS.status()).isEqualTo(502);
    assertThat(Failure.ofConnect(new ConnectException("Connection refused"))).isEqualTo(Failure.CONNECT_FAILED);
    assertThat(Failure.ofLostConnection(new DecoderException(PKIX))).isEqualTo(Failure.BACKEND_TLS);
    assertThat(Failure.ofLostConnection(null)).isEqualTo(Failure.BAD_RESPONSE);
  }

  @Test
  void theLogReasonCarriesTheCauseOfAFailedConnection() {
    assertThat(Failure.BACKEND_TLS.reason(new DecoderException("wrapped", PKIX)))
        .isEqualTo("TLS handshake with the backend failed: PKIX path building failed");
    assertThat(Failure.CONNECT_FAILED.reason(new ConnectException("Connection refused")))
        .isEqualTo("could not connect to a backend: Connection refused");
    assertThat(Failure.SLOT_TIMEOUT.reason(PKIX)).isEqualTo("no free slot within the wait timeout");
    assertThat(Failure.BACKEND_TLS.reason(null)).isEqualTo("TLS handshake with the backend failed");
  }

  @Test
  void eachFailureHasItsGrpcStatusNextToItsHttpStatus() {
    assertThat(Stream.of(Failure.NO_BACKEND, Failure.SLOT_TIMEOUT, Failure.QUEUE_FULL, Failure.SHED, Failure.CONNECT_FAILED,
        Failure.BAD_RESPONSE, Failure.BACKEND_TLS, Failure.DRAINING, Failure.UPLOAD_STALLED).map(Failure::grpcStatus))
        .containsOnly(14);
    assertThat(Stream.of(Failure.RESPONSE_TIMEOUT, Failure.DEADLINE_EXCEEDED).map(Failure::grpcStatus)).containsOnly(4);
    assertThat(Stream.of(Failure.MALFORMED_REQUEST, Failure.MALFORMED_TIMEOUT, Failure.HEADERS_TOO_LARGE)
        .map(Failure::grpcStatus)).containsOnly(13);
    assertThat(Failure.NO_ROUTE.grpcStatus()).isEqualTo(12);
    assertThat(Failure.UNDERSCORE_HEADER.grpcStatus()).isEqualTo(3);
    assertThat(Failure.DEADLINE_EXCEEDED.status()).isEqualTo(504);
    assertThat(Failure.SHED.status() + " " + Failure.SHED.retryAfter() + " " + Failure.SHED.closeConnection())
        .isEqualTo("503 true false");
  }

  @Test
  void aGrpcCallGetsATrailersOnlyAnswerWithPushback() {
    FullHttpResponse r = Failure.SLOT_TIMEOUT.grpcResponse(HttpVersion.HTTP_1_1, 300);
    assertThat(r.status().code()).isEqualTo(200);
    assertThat(r.content().readableBytes()).isZero();
    assertThat(r.headers().entries()).map(Object::toString).containsExactly("content-type=application/grpc",
        "grpc-status=14", "grpc-message=no free slot within the wait timeout", "content-length=0", "retry-after=1",
        "grpc-retry-pushback-ms=1000");
    assertThat(Failure.RESPONSE_TIMEOUT.grpcResponse(HttpVersion.HTTP_1_1, 300).headers().names())
        .containsExactly("content-type", "grpc-status", "grpc-message", "content-length");
    assertThat(Failure.NO_ROUTE.response(HttpVersion.HTTP_1_1, 0, true, true, null).headers().get("connection")).isEqualTo("close");
  }

  @Test
  void carriesTheRequestIdOnPlainAndGrpcAnswers() {
    assertThat(Failure.NO_ROUTE.response(HttpVersion.HTTP_1_1, 0, false, false, "r-1").headers().get("x-request-id"))
        .isEqualTo("r-1");
    assertThat(Failure.NO_ROUTE.response(HttpVersion.HTTP_1_1, 0, false, true, "r-2").headers().get("x-request-id"))
        .isEqualTo("r-2");
    assertThat(Failure.NO_ROUTE.response(HttpVersion.HTTP_1_1, 0, false, false, null).headers().contains("x-request-id"))
        .isFalse();
  }
}
