package dev.fairway.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterConfigTest {
  @TempDir
  Path dir;

  @Test
  void commandLineBeatsEnvironmentBeatsDefault() {
    Path cli = Path.of("/etc/fairway/cluster.xml");
    assertThat(ClusterConfig.resolve(cli, Map.of(ClusterConfig.ENV, "/x.xml"))).isEqualTo(cli);
    assertThat(ClusterConfig.resolve(null, Map.of(ClusterConfig.ENV, "/x.xml"))).isEqualTo(Path.of("/x.xml"));
    assertThat(ClusterConfig.resolve(null, Map.of(ClusterConfig.ENV, " "))).isEqualTo(ClusterConfig.DEFAULT);
    assertThat(ClusterConfig.resolve(null, Map.of())).isEqualTo(Path.of("conf", "cluster.xml"));
  }

  @Test
  void shippedFileJoinsOverTcpOnLoopbackWithoutMulticast() throws Exception {
    Config c = ClusterConfig.load(Path.of("conf", "cluster.xml"));

    assertThat(c.getClusterName()).isEqualTo("fairway");
    assertThat(c.getNetworkConfig().getJoin().getMulticastConfig().isEnabled()).isFalse();
    assertThat(c.getNetworkConfig().getJoin().getTcpIpConfig().isEnabled()).isTrue();
    assertThat(c.getNetworkConfig().getJoin().getTcpIpConfig().getMembers()).containsExactly("127.0.0.1");
    assertThat(c.getNetworkConfig().getInterfaces().getInterfaces()).containsExactly("127.0.0.1");
    assertThat(c.getProperty("hazelcast.wait.seconds.before.join")).isEqualTo("0");
    assertThat(c.getProperty("hazelcast.logging.type")).isEqualTo("slf4j");
  }

  @Test
  void runtimeChangesMergeByTheirLastUpdateAfterASplit() throws Exception {
    Config config = ClusterConfig.load(Path.of("conf", "cluster.xml"));

    assertThat(config.getMapConfig(RuntimeState.MAP).getMergePolicyConfig().getPolicy())
        .isEqualTo("com.hazelcast.spi.merge.LatestUpdateMergePolicy");
    assertThat(config.getMapConfig(RuntimeState.MAP).isPerEntryStatsEnabled()).isTrue();
    assertThat(config.getMapConfig("another").getMergePolicyConfig().getPolicy()).endsWith("PutIfAbsentMergePolicy");
  }

  @Test
  void missingFileIsOneLine() {
    Path absent = dir.resolve("absent.xml");
    assertThatThrownBy(() -> ClusterConfig.load(absent)).isInstanceOf(ClusterConfig.Invalid.class)
        .hasMessage(absent + ": file not found; expected a Hazelcast XML configuration");
  }

  @Test
  void invalidXmlIsOneLine() throws Exception {
    Path bad = Files.writeString(dir.resolve("bad.xml"), "<hazelcast><network><port>oops</port></network>");
    assertThatThrownBy(() -> ClusterConfig.load(bad)).isInstanceOf(ClusterConfig.Invalid.class)
        .hasMessageStartingWith(bad + ": not a valid Hazelcast configuration (")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }
}
