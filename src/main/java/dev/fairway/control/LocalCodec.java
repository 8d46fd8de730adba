package dev.fairway.control;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageCodec;

/**
 * Passes an immutable object by reference between verticles of one process.
 *
 * <p>Example: {@code eventBus.registerDefaultCodec(BalancerSnapshot.class, new
 * LocalCodec<>(BalancerSnapshot.class))} lets the balancer publish snapshots without copying.
 *
 * @param <T> an immutable type
 */
public final class LocalCodec<T> implements MessageCodec<T, T> {
  private final String name;

  public LocalCodec(Class<T> type) {
    this.name = "local-" + type.getName();
  }

  @Override
  public void encodeToWire(Buffer buffer, T t) {
    throw new UnsupportedOperationException(name + " is for local delivery only");
  }

  @Override
  public T decodeFromWire(int pos, Buffer buffer) {
    throw new UnsupportedOperationException(name + " is for local delivery only");
  }

  @Override
  public T transform(T t) {
    return t;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public byte systemCodecID() {
    return -1;
  }
}
