package dev.fairway.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Which requests are gRPC calls, {@code grpc-message}'s percent-encoding, codes read and judged. */
class GrpcStatusTest {
  @Test
  void grpcAndItsFormatsAreCallsGrpcWebAndOthersAreNot() {
    assertThat(Stream.of("application/grpc", "application/grpc+proto", "Application/GRPC+json",
        "application/grpc;charset=utf-8").map(GrpcStatus::isGrpc)).containsOnly(true);
    assertThat(Stream.of("application/grpc-web", "application/grpc-web+proto", "application/grpcx",
        "application/json", "application/grp", "").map(GrpcStatus::isGrpc)).containsOnly(false);
    assertThat(GrpcStatus.isGrpc(null)).isFalse();
  }

  @Test
  void messagesArePercentEncodedAsTheSpecSays() {
    assertThat(GrpcStatus.percentEncode("no free slot within the wait timeout")).isEqualTo("no free slot within the wait timeout");
    assertThat(GrpcStatus.percentEncode("100% busy\r\nnext")).isEqualTo("100%25 busy%0D%0Anext");
    assertThat(GrpcStatus.percentEncode("zeitüberschreitung ~")).isEqualTo("zeit%C3%BCberschreitung ~");
  }

  @Test
  void codesAreReadAsOneToThreeDigits() {
    assertThat(Stream.of("0", "14", "16", "999", "1000", "", "1a", "-1").map(GrpcStatus::parseCode))
        .containsExactly(0, 14, 16, 999, -1, -1, -1, -1);
    assertThat(GrpcStatus.parseCode(null)).isEqualTo(-1);
  }

  @Test
  void byDefaultEveryCodeButOkIsAnErrorAndAListNarrowsIt() {
    assertThat(GrpcErrorCodes.ALL_ERRORS.codes()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    assertThat(Stream.of(-1, 0, 1, 16, 17).map(GrpcErrorCodes.ALL_ERRORS::isError))
        .containsExactly(false, false, true, true, false);
    GrpcErrorCodes narrow = GrpcErrorCodes.of(List.of(2, 4, 8, 13, 14, 15));
    assertThat(narrow.codes()).containsExactly(2, 4, 8, 13, 14, 15);
    assertThat(Stream.of(3, 5, 14).map(narrow::isError)).containsExactly(false, false, true);
    assertThat(GrpcErrorCodes.of(List.of()).codes()).isEmpty();
  }
}
