package dev.fairway.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The backend's target after {@code stripPrefix} ({@code ""}) or {@code rewritePrefix}. */
class TargetRewriteTest {
  @Test
  void stripPrefixKeepsAPathStartingWithSlash() {
    assertThat(Stream.of("/api/users?id=7", "/api", "/api?x=1", "/apix", "/api/").map(t -> TargetRewrite.apply(t, 0, "/api", "")))
        .containsExactly("/users?id=7", "/", "/?x=1", "/x", "/");
  }

  @Test
  void rewritePrefixReplacesIt() {
    assertThat(Stream.of(TargetRewrite.apply("/api/users", 0, "/api", "/v2"), TargetRewrite.apply("/api/users", 0, "/api/", "/v2/"),
        TargetRewrite.apply("/api/users", 0, "/api", "/v2/"), TargetRewrite.apply("http://shop/api/x?q", 11, "/api", "/v2"),
        TargetRewrite.apply("http://shop", 11, "/", "/root/")))
        .containsExactly("/v2/users", "/v2/users", "/v2/users", "http://shop/v2/x?q", "http://shop/root/");
  }
}
