package dev.fairway.grpc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Which {@code grpc-status} codes in a backend's answer count as the backend's failure (for
 * errors-as-load and outlier detection), although HTTP said {@code 200}.
 *
 * <p>Example: {@link #ALL_ERRORS} counts every code but 0 OK; {@code of(List.of(14))} counts
 * only 14 UNAVAILABLE, so a 5 NOT_FOUND is a success: {@code of(List.of(14)).isError(5)} is
 * false, {@code isError(14)} true.
 *
 * @param mask bit {@code c} set: code {@code c} is an error
 */
public record GrpcErrorCodes(int mask) {
  /** Codes 1 to 16: every status but OK (the default). */
  public static final GrpcErrorCodes ALL_ERRORS = new GrpcErrorCodes(((1 << (GrpcStatus.MAX_CODE + 1)) - 1) & ~1);

  /** The given codes, each 1 to {@link GrpcStatus#MAX_CODE} (others are ignored: the parser refuses them). */
  public static GrpcErrorCodes of(Collection<Integer> codes) {
    int mask = 0;
    for (int c : codes) {
      if (c >= 1 && c <= GrpcStatus.MAX_CODE) {
        mask |= 1 << c;
      }
    }
    return new GrpcErrorCodes(mask);
  }

  /** Whether {@code code} counts as a failure; a missing status (negative) never does. */
  public boolean isError(int code) {
    return code > 0 && code <= GrpcStatus.MAX_CODE && (mask & (1 << code)) != 0;
  }

  /** The codes, ascending (for logs and tests). */
  public List<Integer> codes() {
    List<Integer> out = new ArrayList<>();
    for (int c = 1; c <= GrpcStatus.MAX_CODE; c++) {
      if (isError(c)) {
        out.add(c);
      }
    }
    return out;
  }
}
