package dev.fairway.grpc;

/**
 * The gRPC status codes Fairway produces itself, the content types that make a request a gRPC
 * call, and the percent-encoding of {@code grpc-message}.
 *
 * <p>Example: {@code isGrpc("application/grpc+proto")} is true, {@code isGrpc("application/grpc-web")}
 * false; {@code percentEncode("no slot: 100%")} is {@code "no slot: 100%25"}.
 */
public final class GrpcStatus {
  public static final int OK = 0;
  public static final int INVALID_ARGUMENT = 3;
  public static final int DEADLINE_EXCEEDED = 4;
  public static final int UNIMPLEMENTED = 12;
  public static final int INTERNAL = 13;
  public static final int UNAVAILABLE = 14;
  /** The largest code defined (16 UNAUTHENTICATED). */
  public static final int MAX_CODE = 16;
  private static final String GRPC = "application/grpc";
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private GrpcStatus() {
  }

  /**
   * Whether a request with this {@code content-type} is a gRPC call that understands a
   * trailers-only answer: {@code application/grpc}, optionally followed by {@code +format} or
   * parameters ({@code ;}), in any case. gRPC-Web ({@code application/grpc-web*}) is not: its
   * status travels in the body, so it gets Fairway's plain HTTP answers.
   */
  public static boolean isGrpc(CharSequence contentType) {
    if (contentType == null || contentType.length() < GRPC.length()
        || !GRPC.regionMatches(true, 0, contentType.toString(), 0, GRPC.length())) {
      return false;
    }
    if (contentType.length() == GRPC.length()) {
      return true;
    }
    char next = contentType.charAt(GRPC.length());
    return next == '+' || next == ';';
  }

  /** A {@code grpc-status} value's code: 1 to 3 digits; -1 when absent or not a number. */
  public static int parseCode(CharSequence value) {
    if (value == null || value.length() == 0 || value.length() > 3) {
      return -1;
    }
    int code = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      code = code * 10 + (c - '0');
    }
    return code;
  }

  /**
   * {@code grpc-message} text as the gRPC spec encodes it: bytes of its UTF-8 form outside
   * printable ASCII ({@code 0x20-0x7E}), and {@code %} itself, become {@code %XX}.
   */
  public static String percentEncode(String message) {
    byte[] bytes = message.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(bytes.length);
    for (byte b : bytes) {
      int c = b & 0xFF;
      if (c >= 0x20 && c <= 0x7E && c != '%') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
    return out.toString();
  }
}
