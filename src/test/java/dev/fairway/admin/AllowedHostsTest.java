package dev.fairway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The admin listener's {@code Host} rule, one {@code Host} value per line: IP literals,
 * {@code localhost}, {@code admin.host} and {@code admin.allowedHosts} names are served, whatever
 * the case and port; every other name, and anything that is not a plain host, is refused.
 */
class AllowedHostsTest {
  /** {@code admin.host} a name, {@code admin.allowedHosts} two names, one in mixed case. */
  private static final AllowedHosts HOSTS = AllowedHosts.of("admin.internal", List.of("Dash.Example", "kube.local"));

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', value = {
      "127.0.0.1                | IPv4",
      "127.0.0.1:9090           | IPv4 and port",
      "10.0.0.7:80              | any IPv4 address: only its own origin sends it",
      "0.0.0.0                  | the unspecified IPv4 address",
      "255.255.255.255:65535    | highest octets and port",
      "[::1]                    | IPv6 loopback",
      "[::1]:9090               | bracketed IPv6 and port",
      "[::]                     | the unspecified IPv6 address",
      "[2001:DB8::7]:8443       | IPv6 in upper case",
      "[1:2:3:4:5:6:7:8]        | eight groups",
      "[::ffff:127.0.0.1]       | IPv4-mapped IPv6",
      "localhost                | localhost",
      "LOCALHOST:9090           | localhost in any case",
      "admin.internal:9090      | admin.host when it is a name",
      "ADMIN.internal           | admin.host in any case",
      "dash.example             | a name in admin.allowedHosts",
      "DASH.EXAMPLE:1           | a name in admin.allowedHosts, any case and port",
      "kube.local               | another name in admin.allowedHosts",
  })
  void served(String host, String why) {
    assertThat(HOSTS.allows(host)).as(why).isTrue();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', value = {
      "evil.example             | a foreign name",
      "evil.example:9090        | a foreign name with the admin port",
      "127.0.0.1.evil.example   | a name that starts like an address",
      "localhost.evil.example   | a name that starts like localhost",
      "sub.dash.example         | a sub-domain of an allowed name",
      "example                  | a parent of an allowed name",
      "localhost.               | trailing dot: a name looked up in DNS",
      "a@127.0.0.1              | userinfo",
      "a@localhost:9090         | userinfo before localhost",
      "''                       | empty",
      "' '                      | blank",
      ":9090                    | a port and no host",
      "127.0.0.1:               | an empty port",
      "127.0.0.1:70000          | a port above 65535",
      "127.0.0.1:90a            | a port that is not a number",
      "127.0.0.1:80:80          | two ports",
      "256.0.0.1                | an octet above 255",
      "127.1                    | a shortened IPv4 (only four octets are an address)",
      "0x7f.0.0.1               | a hexadecimal octet",
      "::1                      | IPv6 without brackets",
      "[::1                     | an unclosed bracket",
      "[::1]x                   | text after the bracket",
      "[localhost]              | a name in brackets",
      "[1:2:3:4:5:6:7:8:9]      | nine groups",
      "[1::2::3]                | two gaps",
      "[12345::1]               | a group of five digits",
      "[fe80::1%25eth0]         | a zone id",
      "localhost/x              | a path",
      "http://localhost         | a scheme",
      "*.example                | a wildcard",
      "\u212Aube.local          | the Kelvin sign, which lower-cases to k",
  })
  void refused(String host, String why) {
    assertThat(HOSTS.allows(host)).as(why).isFalse();
  }

  @Test
  void nullHostIsRefused() {
    assertThat(HOSTS.allows(null)).isFalse();
  }

  @Test
  void addressAsAdminHostAddsNoName() {
    assertThat(AllowedHosts.of("0.0.0.0", List.of()).names()).containsExactly("localhost");
    assertThat(AllowedHosts.of("::", List.of()).names()).containsExactly("localhost");
    assertThat(HOSTS.names()).containsExactlyInAnyOrder("localhost", "admin.internal", "dash.example", "kube.local");
  }

  @Test
  void refusalNamesTheReason() {
    assertThat(HOSTS.refusal(List.of("127.0.0.1:9090"))).isEmpty();
    assertThat(HOSTS.refusal(List.of())).contains("missing Host header");
    assertThat(HOSTS.refusal(List.of("127.0.0.1", "evil.example"))).contains("more than one Host header");
    assertThat(HOSTS.refusal(List.of("evil.example"))).contains("Host names no address of this admin listener: "
        + "use an IP address or localhost, or add the name to admin.allowedHosts");
  }
}
