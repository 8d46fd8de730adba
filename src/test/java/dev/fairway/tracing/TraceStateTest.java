package dev.fairway.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import org.junit.jupiter.api.Test;

/** W3C {@code tracestate}: forwarded when well formed and at most 512 characters, else dropped. */
class TraceStateTest {
  @Test
  void wellFormed() {
    assertThat(TraceState.valid("congo=t61rcWkgMzE")).isTrue();
    assertThat(TraceState.valid("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")).isTrue();
    assertThat(TraceState.valid("tenant@vendor=x, ,other=1 ")).isTrue();
    assertThat(TraceState.valid("a_-*/9=v a l u e!~")).isTrue();
    assertThat(TraceState.valid("")).isTrue();
  }

  @Test
  void malformed() {
    assertThat(TraceState.valid(null)).isFalse();
    assertThat(TraceState.valid("Congo=t61")).isFalse();
    assertThat(TraceState.valid("congo")).isFalse();
    assertThat(TraceState.valid("congo=")).isFalse();
    assertThat(TraceState.valid("=t61")).isFalse();
    assertThat(TraceState.valid("a=b=c")).isFalse();
    assertThat(TraceState.valid("_a=b")).isFalse();
    assertThat(TraceState.valid("a@b@c=1")).isFalse();
    assertThat(TraceState.valid("a@=1")).isFalse();
    assertThat(TraceState.valid("a=\u00e9")).isFalse();
  }

  @Test
  void bounded() {
    String member = "k=" + "v".repeat(8); // 10 characters
    assertThat(TraceState.valid(String.join(",", Collections.nCopies(32, member)))).isTrue();
    assertThat(TraceState.valid(String.join(",", Collections.nCopies(33, member)))).isFalse();
    assertThat(TraceState.valid("a=" + "v".repeat(254) + ",b=" + "w".repeat(253))).isTrue(); // 512 characters
    assertThat(TraceState.valid("a=" + "v".repeat(254) + ",b=" + "w".repeat(254))).isFalse(); // 513
  }
}
