package dev.fairway.proxy.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link Gateway}'s routing keys: the host of an authority and the path of a target. */
class GatewayTest {
  @Test
  void theHostOfAnAuthorityIsLowerCaseWithoutItsPort() {
    assertThat(Gateway.hostOf("Shop.Example:8080")).isEqualTo("shop.example");
    assertThat(Gateway.hostOf("shop")).isEqualTo("shop");
    assertThat(Gateway.hostOf("[::1]:8080")).isEqualTo("[::1]");
    assertThat(Gateway.hostOf("[::1]")).isEqualTo("[::1]");
    assertThat(Gateway.hostOf(null)).isEmpty();
  }

  @Test
  void thePathOfATargetStopsAtItsQueryOrFragment() {
    assertThat(Gateway.pathOf("/api/x?y=1", 0)).isEqualTo("/api/x");
    assertThat(Gateway.pathOf("/a#frag", 0)).isEqualTo("/a");
    assertThat(Gateway.pathOf("?q", 0)).isEqualTo("/");
    assertThat(Gateway.pathOf("http://shop/api?q", 11)).isEqualTo("/api");
    assertThat(Gateway.pathOf("http://shop", 11)).isEqualTo("/");
  }
}
