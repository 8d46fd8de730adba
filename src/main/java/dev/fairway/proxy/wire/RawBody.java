package dev.fairway.proxy.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * A part of the body of a {@link RawResponse}: bytes as the backend sent them, passed to the client
 * as they are; {@link #last} on the part that ends the body.
 *
 * <p>Example: a 65,536-byte body read in three reads arrives as three parts of, say, 16,240,
 * 32,768 and 16,528 bytes, the last one with {@code last} set.
 */
public final class RawBody extends DefaultByteBufHolder {
  private final boolean last;

  RawBody(ByteBuf content, boolean last) {
    super(content);
    this.last = last;
  }

  public boolean last() {
    return last;
  }
}
