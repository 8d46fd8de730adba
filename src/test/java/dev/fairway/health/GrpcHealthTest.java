package dev.fairway.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The gRPC health call's bytes against grpc-java's own generated messages, and every verdict. */
class GrpcHealthTest {
  private static final String GRPC = "application/grpc";

  @Test
  void requestIsTheGeneratedMessageInAnUncompressedFrame() {
    assertThat(HexFormat.ofDelimiter(" ").formatHex(GrpcHealth.request("shop.Cart")))
        .isEqualTo("00 00 00 00 0b 0a 09 73 68 6f 70 2e 43 61 72 74");
    assertThat(GrpcHealth.request("")).containsExactly(0, 0, 0, 0, 0);
    String longName = "x".repeat(300);
    byte[] framed = GrpcHealth.request(longName);
    byte[] expected = HealthCheckRequest.newBuilder().setService(longName).build().toByteArray();
    assertThat(Arrays.copyOfRange(framed, 0, 5)).containsExactly(0, 0, 0, 1, 47);
    assertThat(Arrays.copyOfRange(framed, 5, framed.length)).isEqualTo(expected);
    assertThat(Arrays.copyOfRange(GrpcHealth.request("ü"), 5, 9))
        .isEqualTo(HealthCheckRequest.newBuilder().setService("ü").build().toByteArray());
  }

  @Test
  void onlyServingPasses() {
    assertThat(verdict(ServingStatus.SERVING)).isNull();
    assertThat(verdict(ServingStatus.NOT_SERVING)).isEqualTo("gRPC health: NOT_SERVING");
    assertThat(verdict(ServingStatus.SERVICE_UNKNOWN)).isEqualTo("gRPC health: SERVICE_UNKNOWN");
    assertThat(verdict(ServingStatus.UNKNOWN)).isEqualTo("gRPC health: UNKNOWN");
    assertThat(ok(frame(new byte[] {0x08, 0x07}))).isEqualTo("gRPC health: status 7 (not a known ServingStatus)");
    assertThat(ok(frame(new byte[] {0x12, 0x01, 0x41, 0x08, 0x01, 0x1D, 1, 2, 3, 4})))
        .as("unknown fields skipped").isNull();
  }

  @Test
  void grpcStatusOtherThanZeroFailsWithItsNameAndMessage() {
    assertThat(GrpcHealth.verdict(new GrpcHealth.Answer(200, GRPC, "5", "unknown service", new byte[0])))
        .isEqualTo("gRPC health: grpc-status 5 NOT_FOUND: unknown service");
    assertThat(GrpcHealth.verdict(new GrpcHealth.Answer(200, GRPC, "12", null, new byte[0])))
        .isEqualTo("gRPC health: grpc-status 12 UNIMPLEMENTED");
    assertThat(GrpcHealth.verdict(new GrpcHealth.Answer(200, GRPC, "14", "down %E2%9C%97 100%", serving())))
        .isEqualTo("gRPC health: grpc-status 14 UNAVAILABLE: down \u2717 100%");
    assertThat(GrpcHealth.verdict(new GrpcHealth.Answer(200, GRPC, "99", "", serving())))
        .isEqualTo("gRPC health: grpc-status 99");
  }

  @Test
  void answersThatAreNoGrpcFail() {
    assertThat(GrpcHealth.verdict(new GrpcHealth.Answer(404, "text/plain", null, null, new byte[0])))
        .isEqualTo("gRPC health: HTTP status 404, not a gRPC answer");
    assertThat(GrpcHealth.verdict(new GrpcHealth.Answer(200, "text/plain", "0", null, serving())))
        .isEqualTo("gRPC health: content-type text/plain, not application/grpc");
    assertThat(GrpcHealth.verdict(new GrpcHealth.Answer(200, "application/grpcx", "0", null, serving())))
        .isEqualTo("gRPC health: content-type application/grpcx, not application/grpc");
    assertThat(GrpcHealth.verdict(new GrpcHealth.Answer(200, null, "0", null, serving())))
        .isEqualTo("gRPC health: content-type null, not application/grpc");
    assertThat(GrpcHealth.verdict(new GrpcHealth.Answer(200, "application/grpc+proto", "0", null, serving()))).isNull();
    assertThat(GrpcHealth.verdict(new GrpcHealth.Answer(200, GRPC, null, null, serving())))
        .isEqualTo("gRPC health: no grpc-status");
  }

  @Test
  void malformedMessagesFailWithTheirReason() {
    byte[] serving = serving();
    assertThat(ok(new byte[0])).isEqualTo("gRPC health: no HealthCheckResponse");
    assertThat(ok(new byte[] {0, 0, 0})).isEqualTo("gRPC health: truncated message prefix");
    assertThat(ok(Arrays.copyOf(serving, serving.length - 1)))
        .isEqualTo("gRPC health: HealthCheckResponse of 2 bytes truncated to 1");
    byte[] twice = Arrays.copyOf(serving, serving.length * 2);
    System.arraycopy(serving, 0, twice, serving.length, serving.length);
    assertThat(ok(twice)).isEqualTo("gRPC health: more than one message");
    byte[] compressed = serving.clone();
    compressed[0] = 1;
    assertThat(ok(compressed)).isEqualTo("gRPC health: compressed HealthCheckResponse (flag 1)");
    assertThat(ok(frame(new byte[] {0x08, (byte) 0x81})))
        .isEqualTo("gRPC health: malformed HealthCheckResponse: varint runs past the end at byte 0");
    assertThat(ok(frame(new byte[] {0x08, 0x01, 0x0F})))
        .isEqualTo("gRPC health: malformed HealthCheckResponse: wire type 7 at byte 2");
  }

  private static String verdict(ServingStatus s) {
    return ok(frame(HealthCheckResponse.newBuilder().setStatus(s).build().toByteArray()));
  }

  private static String ok(byte[] body) {
    return GrpcHealth.verdict(new GrpcHealth.Answer(200, GRPC, "0", null, body));
  }

  private static byte[] serving() {
    return frame(HealthCheckResponse.newBuilder().setStatus(ServingStatus.SERVING).build().toByteArray());
  }

  private static byte[] frame(byte[] message) {
    byte[] framed = new byte[5 + message.length];
    framed[4] = (byte) message.length;
    System.arraycopy(message, 0, framed, 5, message.length);
    return framed;
  }
}
