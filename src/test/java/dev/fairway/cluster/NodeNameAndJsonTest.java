package dev.fairway.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.config.ConfigParser;
import dev.fairway.config.FairwayConfig;
import dev.fairway.cluster.IdAssignment.Member;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeNameAndJsonTest {
  private static FairwayConfig config(Map<String, Object> proxy, Map<String, Object> cluster) throws Exception {
    return ConfigParser.parse(Map.of("proxy", proxy, "admin", Map.of("port", 9191, "token", "test-token-0123456789"),
        "cluster", cluster, "services", List.of(Map.of("name", "api",
            "backends", List.of(Map.of("url", "http://127.0.0.1:9001")))), "subsetting", Map.of()), Map.of());
  }

  @Test
  void aConfiguredNameWinsElseHostAndProxyPortElseAdminPort() throws Exception {
    assertThat(NodeName.of(config(Map.of("port", 8080), Map.of("nodeName", "edge-a")), "web-3")).isEqualTo("edge-a");
    assertThat(NodeName.of(config(Map.of("port", 8080), Map.of()), "web-3.dc1")).isEqualTo("web-3.dc1:8080");
    assertThat(NodeName.of(config(Map.of("port", 0), Map.of()), "web-3.dc1")).isEqualTo("web-3.dc1:9191");
  }

  @Test
  void theMapEntryRoundTrips() {
    IdAssignment a = IdAssignment.EMPTY.next(List.of(new Member("n1", "a"), new Member("n2", "b"),
        new Member("n3", "c")), 0, 30_000).next(List.of(new Member("n1", "a"), new Member("n3", "c")), 1_000, 30_000);
    String json = AssignmentJson.encode(a);
    assertThat(json).isEqualTo("{\"live\":{\"a\":{\"id\":0,\"node\":\"n1\"},\"c\":{\"id\":2,\"node\":\"n3\"}},"
        + "\"reserved\":{\"b\":{\"id\":1,\"untilMs\":31000}}}");
    assertThat(AssignmentJson.decode(json)).isEqualTo(a);
    assertThat(AssignmentJson.decode(null)).isEqualTo(IdAssignment.EMPTY);
    assertThatThrownBy(() -> AssignmentJson.decode("{\"live\":[]}")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a client-id assignment: {\"live\":[]}");
  }
}
