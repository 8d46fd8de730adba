package dev.fairway.accesslog;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class AccessRecordTest {
  private final AccessRecord r = new AccessRecord(Instant.parse("2026-11-22T01:00:00Z"), "127.0.0.1", "GET",
      "/a?q=\"x\"", "HTTP/1.1", "demo", "demo-1", 200, 28, 2.1234, 1.9, 0.0, null, "curl/8.0");

  @Test
  void jsonLineEscapesStrings() {
    assertThat(r.json()).isEqualTo("{\"time\":\"2026-11-22T01:00:00Z\",\"client\":\"127.0.0.1\",\"method\":\"GET\","
        + "\"path\":\"/a?q=\\\"x\\\"\",\"service\":\"demo\",\"backend\":\"demo-1\",\"status\":200,\"bytes\":28,"
        + "\"totalMs\":2.123,\"upstreamMs\":1.9,\"slotWaitMs\":0.0}");
  }

  @Test
  void combinedLineFollowsApacheThenFairwayFields() {
    assertThat(r.combined()).isEqualTo("127.0.0.1 - - [22/Nov/2026:01:00:00 +0000] \"GET /a?q=\\\"x\\\" HTTP/1.1\" "
        + "200 28 \"-\" \"curl/8.0\" service=demo backend=demo-1 total_ms=2.123 upstream_ms=1.9 wait_ms=0.0");
  }

  @Test
  void requestIdComesBeforeTheReason() {
    AccessRecord rec = new AccessRecord(Instant.EPOCH, "c", "GET", "/", "HTTP/1.1", "s", "-", 404, 0, 1, 0, 0,
        null, null, "no route", "req-7");
    assertThat(rec.json()).endsWith(",\"slotWaitMs\":0.0,\"requestId\":\"req-7\",\"reason\":\"no route\"}");
    assertThat(rec.combined()).endsWith(" wait_ms=0.0 request_id=req-7 reason=\"no route\"");
  }

  @Test
  void fairwaysOwnReasonEndsTheLine() {
    AccessRecord failed = new AccessRecord(Instant.EPOCH, "c", "GET", "/", "HTTP/1.1", "s", "b1", 502, 38, 1, 1, 0,
        null, null, "TLS handshake with the backend failed: \"PKIX\"\n");
    assertThat(failed.json()).endsWith(",\"slotWaitMs\":0.0,\"reason\":"
        + "\"TLS handshake with the backend failed: \\\"PKIX\\\"\\u000a\"}");
    assertThat(failed.combined()).endsWith(" wait_ms=0.0 "
        + "reason=\"TLS handshake with the backend failed: \\\"PKIX\\\"?\"");
  }

  @Test
  void controlCharactersCannotForgeLines() {
    AccessRecord evil = new AccessRecord(Instant.EPOCH, "c", "GET", "/x\nfake", "HTTP/1.1", "s", "b", 200, 0, 0, 0, 0,
        "-", "ua\r\n");
    assertThat(evil.json()).doesNotContain("\n").contains("/x\\u000afake");
    assertThat(evil.combined()).doesNotContain("\n").doesNotContain("\r");
  }

  @Test
  void timesAndDurationsReadAsInstantAndDoubleWriteThem() {
    long[] millis = {0, 1, 10, 100, 999, 1_000, 1_001, 1_764_000_000_250L, 1_764_000_000_000L, 253_402_300_799_999L};
    for (long ms : millis) {
      Instant t = Instant.ofEpochMilli(ms);
      AccessRecord rec = new AccessRecord(t, "c", "GET", "/", "HTTP/1.1", "s", "b", 200, 0, 0, 0, 0, null, null);
      assertThat(rec.json()).startsWith("{\"time\":\"" + t + "\"");
    }
    double[] durations = {0.0, 0.0004, 0.0005, 0.001, 0.01, 0.05, 0.1, 1.9, 2.1234, 2.1235, 12.5, 999.9999, 1234.567};
    for (double d : durations) {
      AccessRecord rec = new AccessRecord(Instant.EPOCH, "c", "GET", "/", "HTTP/1.1", "s", "b", 200, 0, d, 0, 0, null,
          null);
      assertThat(rec.json()).as("%s", d).contains("\"totalMs\":" + Math.round(d * 1000) / 1000.0 + ",");
    }
  }

  @Test
  void combinedTimeChangesWithTheSecondThroughOneClock() {
    AccessTime clock = new AccessTime();
    StringBuilder out = new StringBuilder();
    r.appendCombined(out, clock);
    AccessRecord later = new AccessRecord(Instant.parse("2026-11-22T01:00:01.999Z"), "c", "GET", "/", "HTTP/1.1",
        "s", "b", 200, 0, 0, 0, 0, null, null);
    later.appendCombined(out.append('|'), clock);
    later.appendJson(out.append('|'), clock);
    assertThat(out.toString()).contains("[22/Nov/2026:01:00:00 +0000]", "[22/Nov/2026:01:00:01 +0000]",
        "\"time\":\"2026-11-22T01:00:01.999Z\"");
  }
}
