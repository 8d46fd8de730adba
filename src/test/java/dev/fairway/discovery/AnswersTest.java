package dev.fairway.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.DnsDiscovery;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class AnswersTest {
  private static final DnsDiscovery A = new DnsDiscovery("A", "api.test", 30_000, 8080, "http", "", 0, 7);
  private static final DnsDiscovery SRV = new DnsDiscovery("SRV", "_api._tcp.test", 30_000, 80, "h2c", "", 0, 3);

  @Test
  void anAAnswerIsOneBackendPerAddressSortedByIdWithDuplicatesMerged() {
    assertThat(Answers.fromA("api", A, List.of("10.0.0.2", "10.0.0.1", "10.0.0.2"))).containsExactly(
        new Discovered("api-10.0.0.1-8080", "http://10.0.0.1:8080", 7, 1),
        new Discovered("api-10.0.0.2-8080", "http://10.0.0.2:8080", 7, 1));
  }

  @Test
  void anSrvAnswerUsesOnlyTheLowestPriorityWithItsPortsAndWeightsAndWeightZeroAsOne() {
    assertThat(Answers.fromSrv("api", SRV, List.of(new SrvAnswer(20, 9, 9000, "spare.test.", 30),
        new SrvAnswer(10, 5, 8080, "web1.test.", 30), new SrvAnswer(10, 0, 8081, "web2.test", 60)))).containsExactly(
        new Discovered("api-web1.test-8080", "h2c://web1.test:8080", 3, 5),
        new Discovered("api-web2.test-8081", "h2c://web2.test:8081", 3, 1));
  }

  @Test
  void theNextLookupIsAtTheShortestTtlBoundedByRefreshMsAndAtLeastOneSecond() {
    assertThat(List.of(Answers.nextLookupMs(30_000, OptionalLong.of(5)), Answers.nextLookupMs(30_000, OptionalLong.of(300)),
        Answers.nextLookupMs(30_000, OptionalLong.of(0)), Answers.nextLookupMs(30_000, OptionalLong.empty())))
        .containsExactly(5000L, 30_000L, 1000L, 30_000L);
  }
}
