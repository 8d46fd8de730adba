package dev.fairway.proxy.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link RetryPolicy}: only a bodiless idempotent request on a stale pooled connection goes again,
 * and any request on an HTTP/2 stream the backend did not process, if its body was kept.
 */
class RetryPolicyTest {
  private static final IOException RESET = new IOException("Connection reset by peer");

  @Test
  void onlyIdempotentMethodsAreRetried() {
    String verdicts = List.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS, HttpMethod.TRACE, HttpMethod.PUT,
            HttpMethod.DELETE, HttpMethod.POST, HttpMethod.PATCH, HttpMethod.CONNECT).stream()
        .map(m -> m + "=" + RetryPolicy.staleConnection(true, RESET, false, false, false, m))
        .collect(Collectors.joining(" "));
    assertThat(verdicts).isEqualTo(
        "GET=true HEAD=true OPTIONS=true TRACE=true PUT=true DELETE=true POST=false PATCH=false CONNECT=false");
  }

  @Test
  void aNewConnectionATimeoutAnInterimHeadABodyOrAProtocolErrorRuleARetryOut() {
    assertThat(RetryPolicy.staleConnection(true, null, false, false, false, HttpMethod.GET)).isTrue();
    assertThat(RetryPolicy.staleConnection(false, RESET, false, false, false, HttpMethod.GET)).isFalse();
    assertThat(RetryPolicy.staleConnection(true, RESET, true, false, false, HttpMethod.GET)).isFalse();
    assertThat(RetryPolicy.staleConnection(true, RESET, false, true, false, HttpMethod.GET)).isFalse();
    assertThat(RetryPolicy.staleConnection(true, RESET, false, false, true, HttpMethod.PUT)).isFalse();
    assertThat(RetryPolicy.staleConnection(true, new IllegalStateException("bad response"), false, false, false,
        HttpMethod.GET)).isFalse();
  }

  @Test
  void anUnprocessedStreamGoesAgainUnlessFairwayGaveUpAnInterimHeadCameOrTheBodyIsGone() {
    String verdicts = List.of(new boolean[] {true, false, false, true}, new boolean[] {false, false, false, true},
            new boolean[] {true, true, false, true}, new boolean[] {true, false, true, true},
            new boolean[] {true, false, false, false}).stream()
        .map(a -> String.valueOf(RetryPolicy.unprocessedStream(a[0], a[1], a[2], a[3])))
        .collect(Collectors.joining(" "));
    assertThat(verdicts).isEqualTo("true false false false false");
  }
}
