package dev.fairway.proxy.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * How much one read of a backend connection may take: Netty's adaptive guess, capped by what the
 * exchange it serves now can hold. One per backend connection; event-loop confined.
 *
 * <p>Example: a 64 KiB response read for an HTTP/1.1 client comes in one or two reads of up to
 * {@link #FOR_CONNECTION} bytes. The same response for an HTTP/2 stream comes in reads of
 * {@link #FOR_STREAM}, one DATA frame each: ten streams of one client connection whose socket is
 * full then hold 160 KiB between them, not 640 KiB, so 2,000 such streams hold 32 MB, not 128 MB.
 */
final class ReadSize implements RecvByteBufAllocator {
  /** Reads for an HTTP/1.1 client: Netty's usual maximum, so large bodies take few system calls. */
  static final int FOR_CONNECTION = 64 * 1024;
  /** Reads for an HTTP/2 stream: one DATA frame of the default maximum frame size (RFC 9113 §4.2). */
  static final int FOR_STREAM = 16 * 1024;

  private final RecvByteBufAllocator adaptive = new AdaptiveRecvByteBufAllocator(64, 2048, FOR_CONNECTION);
  private int cap = FOR_CONNECTION;

  /** From the next read on, reads take at most {@code bytes}. */
  void cap(int bytes) {
    cap = bytes;
  }

  @Override
  public Handle newHandle() {
    return new Capped((ExtendedHandle) adaptive.newHandle());
  }

  private final class Capped extends DelegatingHandle implements ExtendedHandle {
    Capped(ExtendedHandle adaptive) {
      super(adaptive);
    }

    @Override
    public ByteBuf allocate(ByteBufAllocator alloc) {
      return alloc.ioBuffer(guess());
    }

    @Override
    public int guess() {
      return Math.min(delegate().guess(), cap);
    }

    @Override
    public boolean continueReading(UncheckedBooleanSupplier maybeMoreData) {
      return ((ExtendedHandle) delegate()).continueReading(maybeMoreData);
    }
  }
}
