package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@link Authority}: {@code Host} syntax and absolute-form targets against {@code Host}, one line each. */
class AuthorityTest {
  private static String valid(String... values) {
    return Arrays.stream(values).map(v -> {
      byte[] b = v.getBytes(StandardCharsets.ISO_8859_1);
      return Authority.valid(b, 0, b.length) ? "ok" : "no";
    }).collect(Collectors.joining(" "));
  }

  /** Whether the request line's target fits {@code host} ({@code null}: no Host field). */
  private static boolean fits(String target, String host) {
    String line = "GET " + target + " HTTP/1.1\r\nHost: " + (host == null ? "" : host);
    byte[] b = line.getBytes(StandardCharsets.ISO_8859_1);
    int hostFrom = line.indexOf("Host: ") + 6;
    return Authority.targetMatchesHost(b, 4, host != null, hostFrom, b.length);
  }

  @Test
  void acceptsHostsAndPorts() {
    assertThat(valid("shop.example", "SHOP", "10.0.0.1:8080", "[::1]", "[::1]:443", "", "a:", "xn--bcher-kva.example"))
        .isEqualTo("ok ok ok ok ok ok ok ok");
  }

  @Test
  void refusesUserinfoListsSpacesPathsAndBadPorts() {
    assertThat(valid("user:pw@evil.example", "a@b", "a b", "a,b", "a/b", "a:80x", "a:123456", "[zz]", "[]", "[::1",
        "a\u00a0b", "a\tb")).isEqualTo("no no no no no no no no no no no no");
  }

  @Test
  void anAbsoluteFormTargetMustNameTheHostItCameWith() {
    assertThat(fits("http://shop/a", "shop")).isTrue();
    assertThat(fits("HTTP://Shop:80/a?b", "shop:80")).isTrue();
    assertThat(fits("/a", "anything")).isTrue();
    assertThat(fits("*", "a")).isTrue();
    assertThat(fits("http://evil/a", "shop")).isFalse();
    assertThat(fits("http://user:pw@shop/a", "shop")).isFalse();
    assertThat(fits("http://shop:81/", "shop")).isFalse();
    assertThat(fits("http://user@shop/", null)).isFalse();
    assertThat(fits("http://shop/", null)).isTrue();
  }
}
