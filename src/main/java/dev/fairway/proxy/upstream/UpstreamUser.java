package dev.fairway.proxy.upstream;

/**
 * Who an {@link Upstream} serves while it carries a request: it hears what the backend sends and
 * how the connection fares.
 *
 * <p>Example: an exchange attached to an upstream gets the backend's response head through
 * {@link #fromUpstream}, a {@link #flushToClient} at the end of each read batch, and
 * {@link #upstreamClosed} if the backend hangs up before the response is over.
 */
public interface UpstreamUser {
  /** Something the backend sent: a response head, a body part, or (tunnelled) raw bytes. */
  void fromUpstream(Object msg);

  /** The backend's read batch is over. */
  void flushToClient();

  /** The backend's connection can take more of the request. */
  void upstreamWritable();

  /** The backend connection closed while this user had it. */
  void upstreamClosed(Upstream u);

  /**
   * How many response bytes the client can take now without Fairway holding them: for an HTTP/2
   * stream the least of its window, its connection's window and its share of its connection's
   * buffer; 0 when it can take none. Asked before each read of the backend while serving an
   * HTTP/2 stream.
   */
  int clientRoom();
}
