package dev.fairway.proxy;

import dev.fairway.proxy.wire.RawRequest;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What a client pipelined behind the request under way: request heads and body parts, held in
 * order until that exchange ends, so responses go out in request order.
 *
 * <p>Example: {@code GET /a}, {@code POST /b} with two body parts and {@code GET /c} in one
 * packet: {@code /a} starts, the other four messages are held; when {@code /a} ends,
 * {@link #replay} starts {@code /b} and passes it its two parts, and holds {@code /c} back until
 * {@code /b} ends in turn.
 */
final class HeldRequests {
  private ArrayDeque<Object> held;

  boolean any() {
    return held != null && !held.isEmpty();
  }

  void hold(Object msg) {
    if (held == null) {
      held = new ArrayDeque<>();
    }
    held.add(msg);
  }

  /**
   * Dispatches held messages until an exchange is under way ({@code busy}), then the body parts
   * that follow its head.
   */
  void replay(Consumer<Object> dispatch, BooleanSupplier busy) {
    while (!busy.getAsBoolean() && any()) {
      dispatch.accept(held.poll());
      while (busy.getAsBoolean() && !held.isEmpty() && !(held.peek() instanceof HttpRequest)
          && !(held.peek() instanceof RawRequest)) {
        dispatch.accept(held.poll());
      }
    }
  }

  /** The connection closed: what was held is dropped. */
  void releaseAll() {
    if (held != null) {
      held.forEach(ReferenceCountUtil::release);
      held.clear();
    }
  }
}
