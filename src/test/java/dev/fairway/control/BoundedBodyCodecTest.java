package dev.fairway.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.codec.spi.BodyStream;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The health check's body reader keeps at most its limit of a body and drops the rest. */
class BoundedBodyCodecTest {
  private static String read(int limit, String... parts) throws Exception {
    BodyStream<String> s = new BoundedBodyCodec(limit).stream();
    for (String p : parts) {
      s.write(Buffer.buffer(p));
    }
    s.end();
    return s.result().await(1, TimeUnit.SECONDS);
  }

  @Test
  void keepsTheFirstLimitBytesAcrossParts() throws Exception {
    assertThat(read(4, "he", "llo")).isEqualTo("hell");
    assertThat(read(4, "hell", "o")).isEqualTo("hell");
    assertThat(read(10, "he", "llo")).isEqualTo("hello");
    assertThat(read(0, "hello")).isEmpty();
  }

  @Test
  void aHealthBodyIsSearchedInItsFirst64KiBOnly() throws Exception {
    String padding = "x".repeat(HealthChecker.MAX_BODY_BYTES - 2);
    assertThat(read(HealthChecker.MAX_BODY_BYTES, padding, "ok", "...")).endsWith("ok");
    assertThat(read(HealthChecker.MAX_BODY_BYTES, padding, "x", "ok")).doesNotContain("ok")
        .hasSize(HealthChecker.MAX_BODY_BYTES);
  }

  @Test
  void aFailedStreamFailsTheResult() {
    BodyStream<String> s = new BoundedBodyCodec(4).stream();
    s.handle(new IllegalStateException("reset"));
    assertThat(s.result().failed()).isTrue();
  }
}
