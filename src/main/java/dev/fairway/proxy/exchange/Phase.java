package dev.fairway.proxy.exchange;

/**
 * Where an {@link Exchange} is in its life. It only moves forward:
 * {@code WAITING → CONNECTING → FORWARDING → RESPONDING → DONE}, with {@code TUNNEL} after
 * {@code FORWARDING} for an upgrade, and {@code DONE} reachable from every phase.
 *
 * <p>Example: a {@code GET} granted a slot at once starts in {@code CONNECTING}, is
 * {@code FORWARDING} once its head is written to a backend connection, {@code RESPONDING} once
 * the backend's {@code 200} head is relayed, and {@code DONE} when the last body byte is.
 */
enum Phase {
  /** Queued for a free slot. */
  WAITING,
  /** A slot is held; a backend connection is being taken from the pool or opened. */
  CONNECTING,
  /** The request goes to the backend; no final response head yet. */
  FORWARDING,
  /** The final response head went to the client; its body follows. */
  RESPONDING,
  /** Switched protocols: bytes are relayed both ways until either side closes. */
  TUNNEL,
  /** Answered, aborted or abandoned; nothing more is relayed. */
  DONE
}
