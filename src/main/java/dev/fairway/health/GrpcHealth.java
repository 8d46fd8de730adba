package dev.fairway.health;

import dev.fairway.balancer.ProtoReader;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The standard gRPC health check, {@code grpc.health.v1.Health/Check}, as bytes and a verdict:
 * the request's body and what an answer means.
 *
 * <p>Example: {@code request("shop.Cart")} is {@code 00 00 00 00 0B 0A 09 73 68 6F 70 2E 43 61 72 74}
 * (an uncompressed gRPC message of 11 bytes: field 1 {@code service} = "shop.Cart"); an answer
 * with HTTP 200, {@code content-type: application/grpc}, body {@code 00 00 00 00 02 08 01}
 * ({@code status} = 1) and {@code grpc-status: 0} passes ({@code verdict} gives {@code null}); the
 * body {@code 00 00 00 00 02 08 02} gives {@code "gRPC health: NOT_SERVING"}; a trailers-only
 * answer with {@code grpc-status: 5} and {@code grpc-message: unknown service} gives
 * {@code "gRPC health: grpc-status 5 NOT_FOUND: unknown service"}.
 *
 * <p>Only {@code SERVING} passes: {@code NOT_SERVING}, {@code SERVICE_UNKNOWN}, {@code UNKNOWN},
 * any {@code grpc-status} but 0, a status other than 200, another content type, a missing
 * {@code grpc-status}, a compressed, truncated, repeated or malformed message all fail, each
 * with its reason.
 */
public final class GrpcHealth {
  /** The path of the call. */
  public static final String PATH = "/grpc.health.v1.Health/Check";
  /** The prefix of a failure's reason. */
  public static final String PREFIX = "gRPC health: ";
  private static final String[] CODES = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
  private static final String[] SERVING_STATUS = {"UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"};
  private static final int SERVING = 1;

  private GrpcHealth() {
  }

  /**
   * What a backend answered.
   *
   * @param httpStatus  the HTTP status
   * @param contentType the {@code content-type}, or {@code null}
   * @param grpcStatus  {@code grpc-status} from the trailers (or the headers of a trailers-only
   *                    answer), or {@code null}
   * @param grpcMessage {@code grpc-message} from the same place, or {@code null}
   * @param body        the response body: gRPC length-prefixed messages
   */
  public record Answer(int httpStatus, String contentType, String grpcStatus, String grpcMessage, byte[] body) {
  }

  /** The request body asking about {@code service} ({@code ""}: the whole server). */
  public static byte[] request(String service) {
    byte[] name = service.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream message = new ByteArrayOutputStream();
    if (name.length > 0) {
      message.write(0x0A); // field 1, length-delimited; an empty string is the default, left out
      for (long n = name.length; ; n >>>= 7) {
        if (n < 0x80) {
          message.write((int) n);
          break;
        }
        message.write((int) (n & 0x7F) | 0x80);
      }
      message.writeBytes(name);
    }
    int n = message.size();
    ByteArrayOutputStream framed = new ByteArrayOutputStream(5 + n);
    framed.write(0); // not compressed
    framed.write(n >>> 24);
    framed.write(n >>> 16);
    framed.write(n >>> 8);
    framed.write(n);
    framed.writeBytes(message.toByteArray());
    return framed.toByteArray();
  }

  /** Why {@code a} is no passing answer, or {@code null} when it says {@code SERVING}. */
  public static String verdict(Answer a) {
    if (a.httpStatus() != 200) {
      return PREFIX + "HTTP status " + a.httpStatus() + ", not a gRPC answer";
    }
    String type = a.contentType();
    if (type == null || !type.regionMatches(true, 0, "application/grpc", 0, 16)
        || (type.length() > 16 && type.charAt(16) != '+' && type.charAt(16) != ';')) {
      return PREFIX + "content-type " + type + ", not application/grpc";
    }
    if (a.grpcStatus() == null) {
      return PREFIX + "no grpc-status";
    }
    if (!a.grpcStatus().strip().equals("0")) {
      return PREFIX + "grpc-status " + code(a.grpcStatus().strip())
          + (a.grpcMessage() == null || a.grpcMessage().isEmpty() ? "" : ": " + percentDecoded(a.grpcMessage()));
    }
    return servingStatus(a.body());
  }

  /** The verdict on the one message of a successful call. */
  private static String servingStatus(byte[] body) {
    if (body.length == 0) {
      return PREFIX + "no HealthCheckResponse";
    }
    if (body.length < 5) {
      return PREFIX + "truncated message prefix";
    }
    if (body[0] != 0) {
      return PREFIX + "compressed HealthCheckResponse (flag " + body[0] + ")";
    }
    long length = ((body[1] & 0xFFL) << 24) | ((body[2] & 0xFF) << 16) | ((body[3] & 0xFF) << 8) | (body[4] & 0xFF);
    if (length > body.length - 5) {
      return PREFIX + "HealthCheckResponse of " + length + " bytes truncated to " + (body.length - 5);
    }
    if (length < body.length - 5) {
      return PREFIX + "more than one message";
    }
    byte[] message = new byte[(int) length];
    System.arraycopy(body, 5, message, 0, message.length);
    ProtoReader r = new ProtoReader(message);
    long status = 0; // proto3: a missing enum is its zero value, UNKNOWN
    while (r.more()) {
      long tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.VARINT)) {
        status = r.varint();
      } else if (tag >= 0) {
        r.skip((int) (tag & 7));
      }
    }
    if (r.problem() != null) {
      return PREFIX + "malformed HealthCheckResponse: " + r.problem();
    }
    if (status == SERVING) {
      return null;
    }
    return PREFIX + (status >= 0 && status < SERVING_STATUS.length ? SERVING_STATUS[(int) status]
        : "status " + status + " (not a known ServingStatus)");
  }

  /** {@code 5} as {@code 5 NOT_FOUND}; an unknown code as it is. */
  private static String code(String status) {
    for (int i = 0; i < CODES.length; i++) {
      if (status.equals(Integer.toString(i))) {
        return status + " " + CODES[i];
      }
    }
    return status;
  }

  /** {@code grpc-message} is percent-encoded UTF-8; a malformed escape is kept as it is. */
  static String percentDecoded(String s) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      int hi = i + 2 < s.length() ? Character.digit(s.charAt(i + 1), 16) : -1;
      int lo = i + 2 < s.length() ? Character.digit(s.charAt(i + 2), 16) : -1;
      if (c == '%' && hi >= 0 && lo >= 0) {
        out.write(hi << 4 | lo);
        i += 2;
      } else {
        out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
