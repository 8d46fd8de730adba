package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@link ChunkLine} on chunk-size lines, valid and not (-1), one line each. */
class ChunkLineTest {
  private static String sizes(String... lines) {
    return Arrays.stream(lines).map(l -> Long.toString(ChunkLine.size(l))).collect(Collectors.joining(" "));
  }

  @Test
  void readsHexSizesUpToTheLargestNettyCanRepresent() {
    assertThat(sizes("0", "5", "1a", "1A", "0005", "00000000000000000000ff", "7fffffff")).isEqualTo("0 5 26 26 5 255 2147483647");
  }

  @Test
  void refusesSizesFrom2To31UpWhichNettysIntWouldWrapOrRefuse() {
    assertThat(sizes("80000000", "80000005", "ffffffff", "100000000", "100000005", "7fffffffffffffff",
        "ffffffffffffffff", "10000000000000000")).isEqualTo("-1 -1 -1 -1 -1 -1 -1 -1");
  }

  @Test
  void acceptsChunkExtensionsAndIgnoresThem() {
    assertThat(sizes("5;a", "5;a=b", "5; a = b", "5 ;a=\"q s\"", "5;a=\"\\\"\";b;c=d", "5\t;\ta", "5 "))
        .isEqualTo("5 5 5 5 5 5 5");
  }

  @Test
  void refusesWhatIsNeitherASizeNorAnExtension() {
    assertThat(sizes("", " 5", "zz", "5x", "5;", "5;=b", "5;a=", "5;a=\"open", "5;a=b c", "5,a", "-5", "0x5", "5;a=\"\u0001\""))
        .isEqualTo("-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1");
  }
}
