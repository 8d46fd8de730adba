package dev.fairway.config;

import dev.fairway.grpc.GrpcErrorCodes;
import dev.fairway.grpc.GrpcStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and validates a service's {@code grpc} object, recording each problem on the {@link Node}
 * with its JSON path; absent keys take {@link GrpcSettings#DEFAULTS}.
 *
 * <p>Example: {@code {"errorCodes": [14, 0, "x"]}} at {@code services[0].grpc} records
 * {@code services[0].grpc.errorCodes[1]: 0 is invalid; expected an integer from 1 to 16} and the
 * same for {@code [2]}.
 */
final class GrpcParser {
  private GrpcParser() {
  }

  static GrpcSettings parse(Node n) {
    GrpcSettings s = n.has("errorCodes") ? new GrpcSettings(errorCodes(n)) : GrpcSettings.DEFAULTS;
    n.rejectUnknownKeys();
    return s;
  }

  private static GrpcErrorCodes errorCodes(Node n) {
    String expected = "an integer from 1 to " + GrpcStatus.MAX_CODE;
    List<?> values = n.array("errorCodes", "a JSON array of integers from 1 to " + GrpcStatus.MAX_CODE);
    List<Integer> codes = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      Object v = values.get(i);
      if (v instanceof Number num && num.doubleValue() == Math.rint(num.doubleValue())
          && num.doubleValue() >= 1 && num.doubleValue() <= GrpcStatus.MAX_CODE) {
        codes.add(num.intValue());
      } else {
        n.problemAt(n.child("errorCodes") + "[" + i + "]", Node.show(v) + " is invalid; expected " + expected);
      }
    }
    return GrpcErrorCodes.of(codes);
  }
}
