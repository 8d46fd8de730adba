package dev.fairway.proxy.exchange;

import io.netty.channel.Channel;

/**
 * Why reading a client's connection (or HTTP/2 stream) is paused: several reasons may hold at
 * once, and reading goes on only when none is left.
 *
 * <p>Example: an upload waits for a slot ({@link #AWAIT}), is granted one on a backend whose
 * socket is full ({@link #UPSTREAM}) and then resumes {@code AWAIT}: the channel stays paused
 * until the backend's socket drains and {@code UPSTREAM} is resumed too.
 */
public final class ReadPauses {
  /** A pipelined request waits for the one before it. */
  public static final int PIPELINE = 1;
  /** The exchange has nowhere to put the body yet (waiting for a slot or a connection). */
  public static final int AWAIT = 2;
  /** The backend's connection is not writable. */
  public static final int UPSTREAM = 4;
  /** A tunnel's other side is not writable. */
  public static final int TUNNEL = 8;

  private int paused;

  /** Stops reading {@code ch} for {@code reason} (one of the bits above). */
  public void pause(Channel ch, int reason) {
    if (paused == 0) {
      ch.config().setAutoRead(false);
    }
    paused |= reason;
  }

  /** Reads {@code ch} again once no reason to pause is left. */
  public void resume(Channel ch, int reason) {
    if ((paused & reason) == 0) {
      return;
    }
    paused &= ~reason;
    if (paused == 0) {
      ch.config().setAutoRead(true);
    }
  }
}
