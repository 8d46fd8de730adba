package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.DecoderException;
import java.net.ConnectException;
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
}
