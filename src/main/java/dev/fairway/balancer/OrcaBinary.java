package dev.fairway.balancer;

import java.util.Base64;
import java.util.Optional;

/**
 * Reads the gRPC form of an ORCA load report: the value of the binary metadata field
 * {@code endpoint-load-metrics-bin}, base64 of a serialized {@code xds.data.orca.v3.OrcaLoadReport}.
 *
 * <p>Example: the bytes {@code 09 33 33 33 33 33 33 D3 3F 31 00 00 00 00 00 00 24 40} (field 1
 * {@code cpu_utilization} = 0.3, field 6 {@code rps_fractional} = 10), sent as
 * {@code endpoint-load-metrics-bin: CTMzMzMzM9M/MQAAAAAAACRA}, give
 * {@code LoadReport[cpuUtilization=0.3, applicationUtilization=0.0, qps=10.0, eps=0.0]}, exactly
 * what {@code TEXT cpu_utilization=0.3, rps_fractional=10} gives; {@code ////} gives the problem
 * {@code "varint runs past the end at byte 0"}.
 *
 * <ul>
 *   <li>base64 with or without padding; several comma-separated values (a field repeated in gRPC
 *       metadata) are merged the protobuf way, later fields overriding earlier ones;</li>
 *   <li>fields read: 1 {@code cpu_utilization}, 3 {@code rps} (used when 6 is absent),
 *       6 {@code rps_fractional}, 7 {@code eps}, 9 {@code application_utilization}; all others
 *       ({@code mem_utilization}, the maps 4, 5, 8, fields of later versions) are skipped by their
 *       wire type;</li>
 *   <li>a report that is not base64, is truncated, uses a group or an invalid wire type, gives a
 *       known field the wrong wire type, or holds a negative or non-finite value is a problem:
 *       {@link #read} names it, {@link #parse} gives nothing. Never an exception.</li>
 * </ul>
 * The same reader serves {@code endpoint-load-metrics: BIN <base64>} (Envoy's spelling), so a
 * recorded report string is {@value #TAG} followed by the binary field's value.
 */
public final class OrcaBinary {
  /** The prefix that marks a recorded report string as the binary form: {@code "BIN " + value}. */
  public static final String TAG = "BIN ";
  /** The name of the gRPC binary metadata field. */
  public static final String HEADER = "endpoint-load-metrics-bin";

  private OrcaBinary() {
  }

  /**
   * What one report came to: a report, or the reason there is none.
   *
   * @param report  the report, or {@code null}
   * @param problem why the value is no report, or {@code null}
   */
  public record Reading(LoadReport report, String problem) {
  }

  /** The report in {@code value} (an {@code endpoint-load-metrics-bin} value), or nothing. */
  public static Optional<LoadReport> parse(String value) {
    return Optional.ofNullable(read(value).report());
  }

  /** The recorded form of an {@code endpoint-load-metrics-bin} value, for {@link OrcaParser#parse}. */
  public static String tagged(String value) {
    return value == null ? null : TAG + value;
  }

  /** Reads {@code value} (an {@code endpoint-load-metrics-bin} value); never throws. */
  public static Reading read(String value) {
    if (value == null || value.isBlank()) {
      return new Reading(null, "empty value");
    }
    double[] v = {Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN};
    for (String part : value.split(",", -1)) {
      byte[] bytes;
      try {
        bytes = Base64.getDecoder().decode(part.strip());
      } catch (IllegalArgumentException e) {
        return new Reading(null, "not base64");
      }
      String problem = fields(bytes, v);
      if (problem != null) {
        return new Reading(null, problem);
      }
    }
    double qps = !Double.isNaN(v[2]) ? v[2] : orZero(v[4]);
    return new Reading(new LoadReport(orZero(v[0]), orZero(v[1]), qps, orZero(v[3])), null);
  }

  private static double orZero(double d) {
    return Double.isNaN(d) ? 0 : d;
  }

  /**
   * Stores the known fields of one serialized report in {@code v} (cpu, application,
   * rps_fractional, eps, rps).
   *
   * @return the problem, or {@code null}
   */
  private static String fields(byte[] bytes, double[] v) {
    ProtoReader r = new ProtoReader(bytes);
    while (r.more()) {
      long tag = r.tag();
      if (tag < 0) {
        break;
      }
      int field = (int) (tag >>> 3);
      int wire = (int) (tag & 7);
      int slot = switch (field) {
        case 1 -> 0;
        case 9 -> 1;
        case 6 -> 2;
        case 7 -> 3;
        case 3 -> 4;
        default -> -1;
      };
      if (slot < 0) {
        r.skip(wire);
        continue;
      }
      int expected = slot == 4 ? ProtoReader.VARINT : ProtoReader.FIXED64;
      if (wire != expected) {
        r.fail("field " + field + " has wire type " + wire + ", expected " + expected);
        break;
      }
      long n = slot == 4 ? r.varint() : r.fixed64();
      double d = slot != 4 ? Double.longBitsToDouble(n) : n >= 0 ? n : (n >>> 1) * 2.0; // uint64 above 2^63
      if (!(d >= 0) || Double.isInfinite(d)) {
        r.fail("field " + field + " is " + d + ", not a non-negative finite number");
      }
      if (r.problem() == null) {
        v[slot] = d;
      }
    }
    return r.problem();
  }
}
