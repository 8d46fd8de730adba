package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.EdgeLimits;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link HeadCheck} on hand-picked heads, and against {@link HeadCheckOracle} on heads mutated at
 * random (a fixed seed, so a failure repeats).
 */
class HeadCheckTest {
  private static final EdgeLimits LIMITS = new EdgeLimits(32 * 1024, 6, 40, 10_000, 60_000, 10_000,
      EdgeLimits.UnderscoreHeaders.DROP, 0, 100);
  private static final List<String> SEEDS = List.of(
      "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
      "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\nX-Y: z\r\n\r\n",
      "POST / HTTP/1.1\r\nhost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
      "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
      "GET / HTTP/1.0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
      "HTTP/1.1 204 No Content\r\n\r\n",
      "HTTP/1.0 301 Moved\r\nLocation: /x\r\n\r\n",
      "HTTP/1.1 200\r\nTransfer-Encoding: chunked\r\nVia: 1.1 x\r\n\r\n",
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n");
  private static final String ALPHABET = " \t\r\n:,_\0\u00a0\u001f\u000bAaHhCc019-/.";

  private static HeadCheck.Verdict request(String head) {
    byte[] b = head.getBytes(StandardCharsets.ISO_8859_1);
    return HeadCheck.request(b, b.length, LIMITS);
  }

  private static HeadCheck.Verdict response(String head, boolean toHead) {
    byte[] b = head.getBytes(StandardCharsets.ISO_8859_1);
    return HeadCheck.response(b, b.length, toHead);
  }

  @Test
  void framesValidHeads() {
    assertThat(request("GET / HTTP/1.1\r\nHost: a\r\n\r\n")).isEqualTo(new HeadCheck.Verdict(null, 0, 0, false));
    assertThat(request("POST / HTTP/1.1\r\nHOST: a\r\ncontent-length:  12 \r\n\r\n").bodyLength()).isEqualTo(12);
    assertThat(request("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip,chunked\r\n\r\n").bodyLength())
        .isEqualTo(HeadCheck.CHUNKED);
    assertThat(request("GET / HTTP/1.1\r\nHost: a\r\nUpgrade: h2c\r\n\r\n").upgrade()).isTrue();
    assertThat(response("HTTP/1.1 200 OK\r\n\r\n", false).bodyLength()).isEqualTo(HeadCheck.UNTIL_CLOSE);
    assertThat(response("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", true)).isEqualTo(new HeadCheck.Verdict(null, 0, 200, false));
    assertThat(response("HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", false).bodyLength()).isZero();
  }

  @Test
  void failsEachKindOfFault() {
    assertThat(request("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n").failure())
        .isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(request("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n").failure()).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(request("GET / HTTP/1.1\r\nHost : a\r\n\r\n").failure()).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(request("GET / HTTP/1.1\r\n\r\n").failure()).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(request("GET  / HTTP/1.1\r\nHost: a\r\n\r\n").failure()).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(request("GET /" + "x".repeat(40) + " HTTP/1.1\r\nHost: a\r\n\r\n").failure()).isEqualTo(Failure.URI_TOO_LONG);
    assertThat(request("GET / HTTP/1.1\r\nHost: a\r\n" + "A: 1\r\n".repeat(6) + "\r\n").failure())
        .isEqualTo(Failure.HEADERS_TOO_LARGE);
    assertThat(request("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 1\r\n\r\n").failure()).isEqualTo(Failure.MALFORMED_REQUEST);
    assertThat(response("HTTP/1.1 2000 OK\r\n\r\n", false).failure()).isEqualTo(Failure.BAD_RESPONSE);
    assertThat(response("HTTP/1.1 099 Low\r\n\r\n", false).failure()).isEqualTo(Failure.BAD_RESPONSE);
    assertThat(response("HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", false).failure()).isEqualTo(Failure.BAD_RESPONSE);
  }

  @Test
  void refusesControlCharactersButHtabInFieldValues() {
    assertThat(request("GET / HTTP/1.1\r\nHost: a\r\nX: a\tb\r\n\r\n").ok()).isTrue();
    for (String ctl : List.of("\u0001", "\u000b", "\u000c", "\u001f", "\u007f", "\u0000")) {
      assertThat(request("GET / HTTP/1.1\r\nHost: a\r\nX: a" + ctl + "b\r\n\r\n").failure()).as(ctl)
          .isEqualTo(Failure.MALFORMED_REQUEST);
      assertThat(response("HTTP/1.1 200 OK\r\nX: a" + ctl + "b\r\n\r\n", false).failure()).as(ctl)
          .isEqualTo(Failure.BAD_RESPONSE);
    }
  }

  @Test
  void refusesAHostThatIsNoAuthorityAndAnAbsoluteTargetThatNamesAnother() {
    assertThat(request("GET / HTTP/1.1\r\nHost: a.example:8080\r\n\r\n").ok()).isTrue();
    assertThat(request("GET http://a/x HTTP/1.1\r\nHost: A\r\n\r\n").ok()).isTrue();
    for (String head : List.of("GET / HTTP/1.1\r\nHost: u@a\r\n\r\n", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a, b\r\n\r\n", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a:x\r\n\r\n", "GET http://u:p@e.x/ HTTP/1.1\r\nHost: e.x\r\n\r\n",
        "GET http://e.x/ HTTP/1.1\r\nHost: shop\r\n\r\n")) {
      assertThat(request(head).failure()).as(head).isEqualTo(Failure.MALFORMED_REQUEST);
    }
  }

  @Test
  void agreesWithTheStringOracleOnMutatedHeads() {
    SplittableRandom random = new SplittableRandom(20261122);
    int disagreements = 0;
    StringBuilder first = new StringBuilder();
    int rejected = 0;
    for (int n = 0; n < 200_000; n++) {
      String seed = SEEDS.get(random.nextInt(SEEDS.size()));
      StringBuilder head = new StringBuilder(seed);
      for (int edits = 1 + random.nextInt(3); edits > 0; edits--) {
        int at = random.nextInt(head.length() + 1);
        switch (random.nextInt(3)) {
          case 0 -> head.insert(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
          case 1 -> { if (at < head.length()) head.deleteCharAt(at); }
          default -> { if (at < head.length()) head.setCharAt(at, ALPHABET.charAt(random.nextInt(ALPHABET.length()))); }
        }
      }
      String text = head.toString();
      boolean req = !text.startsWith("HTTP/");
      boolean toHead = random.nextBoolean();
      byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
      HeadCheck.Verdict actual = req ? HeadCheck.request(b, b.length, LIMITS) : HeadCheck.response(b, b.length, toHead);
      HeadCheck.Verdict expected = HeadCheckOracle.verdict(text, req, LIMITS, toHead);
      if (!actual.equals(expected) && disagreements++ == 0) {
        first.append(text.replace("\r", "\\r").replace("\n", "\\n")).append(": ").append(actual).append(" vs ").append(expected);
      }
      if (!expected.ok()) {
        rejected++;
      }
    }
    assertThat(first.toString()).isEmpty();
    assertThat(disagreements).isZero();
    assertThat(rejected).as("the mutations exercise both outcomes").isBetween(20_000, 190_000);
  }
}
