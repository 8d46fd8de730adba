package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ForwardedElementTest {
  @Test
  void ipv6IsBracketedAndQuotedAndAHostWithAPortIsQuoted() {
    assertThat(ForwardedElement.forwarded(null, "2001:db8::7", true, "api.example:8443", 0))
        .isEqualTo("for=\"[2001:db8::7]\";proto=https;host=\"api.example:8443\"");
  }

  @Test
  void ipv4AndATokenHostStayBareAndNoAuthorityMeansNoHost() {
    assertThat(ForwardedElement.forwarded(null, "10.0.0.7", false, "api.example", 0))
        .isEqualTo("for=10.0.0.7;proto=http;host=api.example");
    assertThat(ForwardedElement.forwarded(null, "10.0.0.7", false, null, 0)).isEqualTo("for=10.0.0.7;proto=http");
  }

  @Test
  void aPriorListIsDroppedUntrustedAndKeepsItsTrustedTail() {
    String prior = "for=6.6.6.6, for=10.0.0.1;proto=https";
    assertThat(ForwardedElement.forwarded(prior, "127.0.0.1", false, null, 0)).isEqualTo("for=127.0.0.1;proto=http");
    assertThat(ForwardedElement.forwarded(prior, "127.0.0.1", false, null, 1))
        .isEqualTo("for=10.0.0.1;proto=https, for=127.0.0.1;proto=http");
  }

  @Test
  void quotesAndBackslashesInAValueAreEscaped() {
    assertThat(ForwardedElement.value("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
    assertThat(ForwardedElement.value("")).isEqualTo("\"\"");
  }

  @Test
  void forwardedIsReadAsAPriorList() {
    assertThat(ForwardingRules.request("Forwarded", null)).isEqualTo(ForwardingRules.Rule.PRIOR_FORWARDED);
  }

  @Test
  void theFieldLineWrittenAsBytesCarriesTheSameValueInEveryCase() {
    String prior = "for=6.6.6.6, for=10.0.0.1;proto=https";
    assertThat(line(null, "2001:db8::7", true, "api.example:8443", 0))
        .isEqualTo("Forwarded: for=\"[2001:db8::7]\";proto=https;host=\"api.example:8443\"\r\n");
    assertThat(line(null, "10.0.0.7", false, "api.example", 0)).isEqualTo("Forwarded: for=10.0.0.7;proto=http;host=api.example\r\n");
    assertThat(line(null, "10.0.0.7", false, null, 0)).isEqualTo("Forwarded: for=10.0.0.7;proto=http\r\n");
    assertThat(line(prior, "127.0.0.1", false, null, 0)).isEqualTo("Forwarded: for=127.0.0.1;proto=http\r\n");
    assertThat(line(prior, "127.0.0.1", false, "a", 1))
        .isEqualTo("Forwarded: for=10.0.0.1;proto=https, for=127.0.0.1;proto=http;host=a\r\n");
  }

  private static String line(String prior, String client, boolean tls, String authority, int hops) {
    ByteBuf out = Unpooled.buffer();
    ForwardedElement.write(out, prior, client, tls, authority, hops);
    String written = out.toString(StandardCharsets.ISO_8859_1);
    assertThat(written).isEqualTo("Forwarded: " + ForwardedElement.forwarded(prior, client, tls, authority, hops) + "\r\n");
    return written;
  }
}
