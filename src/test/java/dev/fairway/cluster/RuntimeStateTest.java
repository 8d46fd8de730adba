package dev.fairway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.fairway.control.BalancerCommand;
import dev.fairway.control.RuntimeChange;
import dev.fairway.control.Stamp;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The recorded map keeps, per key, the change with the latest stamp, whatever order they are put in. */
class RuntimeStateTest {
  private static HazelcastInstance hazelcast;

  @BeforeAll
  static void start() {
    Config config = new Config().setClusterName("runtime-state-test-" + UUID.randomUUID());
    config.setProperty("hazelcast.logging.type", "slf4j");
    config.setProperty("hazelcast.phone.home.enabled", "false");
    var join = config.getNetworkConfig().getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    hazelcast = Hazelcast.newHazelcastInstance(config);
  }

  @AfterAll
  static void stop() {
    hazelcast.shutdown();
  }

  @Test
  void aLaterStampReplacesAnEarlierOneAndNotTheOtherWayRound() {
    IMap<String, String> map = hazelcast.getMap(RuntimeState.MAP);
    RuntimeState.putIfLater(map, lameDuck("b1", true, 2_000, "a"));
    RuntimeState.putIfLater(map, lameDuck("b1", false, 1_000, "b"));
    assertThat(on(map, "lame-duck/b1")).isTrue();
    RuntimeState.putIfLater(map, lameDuck("b1", false, 2_000, "b"));
    assertThat(on(map, "lame-duck/b1")).isFalse();
    RuntimeState.putIfLater(map, lameDuck("b2", true, 1, "a"));
    assertThat(map.keySet()).containsExactlyInAnyOrder("lame-duck/b1", "lame-duck/b2");
  }

  private static RuntimeChange lameDuck(String id, boolean on, long at, String origin) {
    return RuntimeChange.of(new BalancerCommand.LameDuck(id, on), List.of(), new Stamp(at, origin)).get(0);
  }

  private static boolean on(IMap<String, String> map, String key) {
    return new JsonObject(map.get(key)).getJsonObject("command").getBoolean("on");
  }
}
