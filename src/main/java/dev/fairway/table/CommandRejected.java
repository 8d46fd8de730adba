package dev.fairway.table;

/**
 * An admin command the table refuses, with the HTTP status the caller gets.
 *
 * <p>Example: lame duck for an unknown id throws {@code CommandRejected(404, "unknown backend id
 * b9")}. Carries no stack trace.
 */
public final class CommandRejected extends RuntimeException {
  private final int status;

  public CommandRejected(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  /** 400 for a bad body, 404 for an unknown service or backend. */
  public int status() {
    return status;
  }
}
