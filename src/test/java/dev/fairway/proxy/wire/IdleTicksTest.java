package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link IdleTicks}: quiet ticks in a row, counted from the last activity. */
class IdleTicksTest {
  private static String ticks(IdleTicks idle, String script) {
    StringBuilder out = new StringBuilder();
    for (char c : script.toCharArray()) {
      if (c == 't') {
        idle.touch();
      } else {
        out.append(idle.quietFor(4) ? 'Q' : '.');
      }
    }
    return out.toString();
  }

  @Test
  void theFourthQuietTickInARowAfterTheLastActivityIsTheTimeout() {
    assertThat(ticks(new IdleTicks(), "kkkkk")).isEqualTo("....Q");
    assertThat(ticks(new IdleTicks(), "kkktkkkkk")).isEqualTo(".......Q");
    assertThat(ticks(new IdleTicks(), "kttkkkkkk")).isEqualTo(".....QQ");
  }
}
