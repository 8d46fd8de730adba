package dev.fairway.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.HeaderCondition;
import dev.fairway.config.HeaderCondition.Kind;
import dev.fairway.config.HeaderRules;
import dev.fairway.config.MatchRule;
import dev.fairway.config.RequestFields;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documented evaluation order: longest path prefix, then exact host before {@code *}, then
 * more conditions (methods, headers) first, then file order.
 */
class BalancerSnapshotTest {
  private static final HeaderCondition CANARY = new HeaderCondition("x-canary", Kind.EXACT, "yes", null);

  private final BalancerSnapshot snapshot = new BalancerSnapshot(1, List.of(
      route("root", new MatchRule("*", "/")),
      route("api", new MatchRule("*", "/api")),
      route("api-first", new MatchRule("*", "/api")),
      route("api-post", new MatchRule("*", "/api", List.of("POST"), List.of())),
      route("api-post-canary", new MatchRule("*", "/api", List.of("POST"), List.of(CANARY))),
      route("api-canary", new MatchRule("*", "/api", List.of(), List.of(CANARY))),
      route("shop-api", new MatchRule("shop", "/api"))));

  @Test
  void routesInTheDocumentedOrder() {
    assertThat(snapshot.routes().stream().map(Route::service)).containsExactly(
        "shop-api", "api-post-canary", "api-post", "api-canary", "api", "api-first", "root");
  }

  @Test
  void theMoreSpecificRuleWinsAtTheSameHostAndPrefix() {
    Map<String, String> canary = Map.of("x-canary", "yes");
    RequestFields none = name -> null;
    assertThat(Stream.of(
        snapshot.route("x", "/api/1", "POST", canary::get),
        snapshot.route("x", "/api/1", "POST", none),
        snapshot.route("x", "/api/1", "GET", canary::get),
        snapshot.route("x", "/api/1", "GET", none),
        snapshot.route("shop", "/api/1", "POST", canary::get),
        snapshot.route("x", "/other", "POST", canary::get)).map(Route::service))
        .containsExactly("api-post-canary", "api-post", "api-canary", "api", "shop-api", "root");
  }

  private static Route route(String service, MatchRule match) {
    return new Route(service, match, null, null, null, null, null, null, HeaderRules.NONE, List.of());
  }
}
