package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestIdTest {
  @Test
  void keepsAValidClientIdAndReplacesOthers() {
    assertThat(RequestId.resolve("abc-123_X.~")).isEqualTo("abc-123_X.~");
    assertThat(RequestId.valid("x".repeat(RequestId.MAX_LENGTH))).isTrue();
    assertThat(new boolean[] {RequestId.valid(null), RequestId.valid(""), RequestId.valid("a b"), RequestId.valid("a\"b"),
        RequestId.valid("é"), RequestId.valid("x".repeat(RequestId.MAX_LENGTH + 1))})
        .containsExactly(false, false, false, false, false, false);
    assertThat(RequestId.resolve("a b")).matches("[0-9a-f]{32}");
  }

  @Test
  void generatesDistinct128BitHexIds() {
    String a = RequestId.generate();
    assertThat(a).matches("[0-9a-f]{32}").isNotEqualTo(RequestId.generate());
  }
}
