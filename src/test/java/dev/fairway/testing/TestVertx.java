package dev.fairway.testing;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

/**
 * A Vert.x for tests with the options {@code Main} gives Fairway's: Netty's native transport
 * (epoll on Linux) where it loads, so the tests exercise the transport production runs on.
 *
 * <p>Example: {@code vertx = TestVertx.create();} in a test's set-up, closed in its tear-down.
 */
public final class TestVertx {
  private TestVertx() {
  }

  public static Vertx create() {
    return Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
  }
}
