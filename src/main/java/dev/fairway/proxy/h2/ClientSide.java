package dev.fairway.proxy.h2;

import io.netty.channel.Channel;

/**
 * The client connection that HTTP/2 takes over: what its streams need of it.
 *
 * <p>Example: when the preface arrives, {@link H2c} finds the connection's {@code ClientSide} in the
 * pipeline under {@link #NAME}, installs the frame codec and tells it {@link #switchedToH2}; each
 * stream's frames then {@link #touch} it, so that it is not idle.
 */
public interface ClientSide {
  /** The name of the client connection's handler in its pipeline. */
  String NAME = "connection";

  Channel channel();

  /** The client's IP address, as text. */
  String remote();

  /** Whether the connection came in over TLS. */
  boolean secure();

  /** Bytes were read or sent: the connection is not idle. */
  void touch();

  /** From now on the connection speaks HTTP/2 through {@code h2}. */
  void switchedToH2(H2Connection h2);
}
