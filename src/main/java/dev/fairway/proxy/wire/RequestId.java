package dev.fairway.proxy.wire;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The {@code X-Request-Id} an exchange carries: the client's when it is a plausible id, else a
 * fresh one, so that one id ties the client's answer, the backend's log and Fairway's access log.
 *
 * <p>Example: {@code resolve("abc-123")} is {@code "abc-123"}; {@code resolve(null)},
 * {@code resolve("")} and {@code resolve("a b")} are 32 new lower-case hex digits such as
 * {@code "6f1c0e3a9b7d42e58c0a1f2b3c4d5e6f"} (128 random bits from {@link ThreadLocalRandom}: no
 * shared lock on the event loop).
 */
public final class RequestId {
  /** The field's name, lower case as HTTP/2 has it. */
  public static final String HEADER = "x-request-id";
  /** The longest client id kept; a longer one is replaced. */
  public static final int MAX_LENGTH = 128;
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private RequestId() {
  }

  /** The client's {@code id} if it is 1 to {@value #MAX_LENGTH} token characters (RFC 9110 §5.6.2), else a new one. */
  public static String resolve(String id) {
    return valid(id) ? id : generate();
  }

  /** Whether {@code id} is kept as it is. */
  public static boolean valid(String id) {
    return id != null && id.length() <= MAX_LENGTH && HeadCheck.isToken(id);
  }

  /** 32 lower-case hex digits: 128 random bits. */
  public static String generate() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    char[] out = new char[32];
    hex(r.nextLong(), out, 0);
    hex(r.nextLong(), out, 16);
    return new String(out);
  }

  private static void hex(long v, char[] out, int at) {
    for (int i = 15; i >= 0; i--, v >>>= 4) {
      out[at + i] = HEX[(int) (v & 0xF)];
    }
  }
}
