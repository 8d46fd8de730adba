package dev.fairway.proxy.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * How much one read of a backend connection may take: Netty's adaptive guess, capped by what the
 * client it serves can take at that moment. One per backend connection; event-loop confined.
 *
 * <p>Example: a 64 KiB response for an HTTP/1.1 client comes in one or two reads of up to
 * {@link #MOST} bytes. For an HTTP/2 stream each read takes what the client can take now
 * ({@link UpstreamUser#clientRoom()}: the stream's window, the connection's, and the stream's share
 * of its connection's buffer), within [{@link #LEAST}, {@link #MOST}], and a wake-up's reads end
 * once a read was made with no room left. A single stream that keeps up reads 64 KiB at a time;
 * ten streams of a client whose socket is full read one DATA frame each, 160 KiB between them, not
 * 640 KiB, so 2,000 such streams hold 32 MB, not 128 MB.
 */
final class ReadSize implements RecvByteBufAllocator {
  /** The largest read: Netty's usual maximum, so large bodies take few system calls. */
  static final int MOST = 64 * 1024;
  /** The least cap: one DATA frame of the default maximum frame size (RFC 9113 §4.2). */
  static final int LEAST = 16 * 1024;

  /**
   * Reads a wake-up makes at most: Netty's default for a stream channel. An allocator made by hand
   * allows one, which would leave the rest of a 64 KiB response to another turn of the loop.
   */
  static final int READS_PER_WAKE_UP = 16;

  private final RecvByteBufAllocator adaptive =
      new AdaptiveRecvByteBufAllocator(64, 2048, MOST).maxMessagesPerRead(READS_PER_WAKE_UP);
  /** The HTTP/2 stream being served, whose room caps each read; {@code null}: an HTTP/1.1 client. */
  private UpstreamUser stream;

  /** From the next read on, reads are capped by what {@code stream} can take; {@code null}: by {@link #MOST}. */
  void serve(UpstreamUser stream) {
    this.stream = stream;
  }

  /** The cap for a client that can take {@code room} bytes now: {@code room} within [{@link #LEAST}, {@link #MOST}]. */
  static int cap(int room) {
    return Math.max(LEAST, Math.min(MOST, room));
  }

  @Override
  public Handle newHandle() {
    return new Capped((ExtendedHandle) adaptive.newHandle());
  }

  private final class Capped extends DelegatingHandle implements ExtendedHandle {
    /** A read of this batch was made when the client had no room left: the batch ends after it. */
    private boolean overdrawn;

    Capped(ExtendedHandle adaptive) {
      super(adaptive);
    }

    @Override
    public void reset(ChannelConfig config) {
      overdrawn = false;
      super.reset(config);
    }

    @Override
    public ByteBuf allocate(ByteBufAllocator alloc) {
      int room = room();
      overdrawn |= room <= 0;
      return alloc.ioBuffer(Math.min(delegate().guess(), cap(room)));
    }

    @Override
    public int guess() {
      return Math.min(delegate().guess(), cap(room()));
    }

    private int room() {
      UpstreamUser s = stream;
      return s == null ? MOST : s.clientRoom();
    }

    @Override
    public boolean continueReading(UncheckedBooleanSupplier maybeMoreData) {
      return ((ExtendedHandle) delegate()).continueReading(maybeMoreData) && !overdrawn;
    }
  }
}
