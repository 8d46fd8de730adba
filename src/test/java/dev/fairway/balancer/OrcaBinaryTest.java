package dev.fairway.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** Reports made by protobuf-java's own encoder with the real {@code OrcaLoadReport} field numbers. */
public class OrcaBinaryTest {

  /** Writes fields with protobuf-java's encoder. */
  public interface Fields {
    void write(CodedOutputStream out) throws IOException;
  }

  public static byte[] proto(Fields fields) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      fields.write(out);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  static String b64(byte[] b) {
    return Base64.getEncoder().encodeToString(b);
  }

  /** A {@code map<string, double>} entry of field {@code field}. */
  static void mapEntry(CodedOutputStream out, int field, String key, double value) throws IOException {
    out.writeTag(field, WireFormat.WIRETYPE_LENGTH_DELIMITED);
    out.writeUInt32NoTag(CodedOutputStream.computeStringSize(1, key) + CodedOutputStream.computeDoubleSize(2, value));
    out.writeString(1, key);
    out.writeDouble(2, value);
  }

  /** Every field of {@code OrcaLoadReport} v3, in field order. */
  static byte[] full() {
    return proto(out -> {
      out.writeDouble(1, 0.42);
      out.writeDouble(2, 0.9);
      out.writeUInt64(3, 77);
      mapEntry(out, 4, "db", 3.5);
      mapEntry(out, 5, "gpu", 0.7);
      out.writeDouble(6, 120.5);
      out.writeDouble(7, 0.25);
      mapEntry(out, 8, "queue", 12);
      out.writeDouble(9, 0.3);
    });
  }

  @Test
  void everyFieldOfTheRealMessage() {
    assertThat(OrcaBinary.read(b64(full()))).isEqualTo(new OrcaBinary.Reading(new LoadReport(0.42, 0.3, 120.5, 0.25), null));
  }

  @Test
  void theJavadocExampleIsTheTextForm() {
    String bin = b64(proto(out -> {
      out.writeDouble(1, 0.3);
      out.writeDouble(6, 10);
    }));
    assertThat(bin).isEqualTo("CTMzMzMzM9M/MQAAAAAAACRA");
    assertThat(OrcaBinary.parse(bin)).isEqualTo(OrcaParser.parse("TEXT cpu_utilization=0.3, rps_fractional=10"));
    assertThat(OrcaParser.parse("BIN " + bin)).contains(new LoadReport(0.3, 0, 10, 0));
    assertThat(OrcaBinary.read("////")).isEqualTo(new OrcaBinary.Reading(null, "varint runs past the end at byte 0"));
  }

  @Test
  void unpaddedAndWhitespaceAroundAreAccepted() {
    String padded = b64(proto(out -> {
      out.writeDouble(7, 2);
      out.writeFixed32(10, 1);
    }));
    String unpadded = padded.replace("=", "");
    assertThat(padded).endsWith("=");
    assertThat(OrcaBinary.parse(" " + unpadded + " ")).contains(new LoadReport(0, 0, 0, 2));
  }

  @Test
  void legacyIntegerRpsCountsOnlyWithoutRpsFractional() {
    assertThat(OrcaBinary.parse(b64(proto(out -> out.writeUInt64(3, 50))))).contains(new LoadReport(0, 0, 50, 0));
    assertThat(OrcaBinary.parse(b64(proto(out -> {
      out.writeDouble(6, 12.5);
      out.writeUInt64(3, 50);
    })))).contains(new LoadReport(0, 0, 12.5, 0));
    assertThat(OrcaBinary.parse(b64(proto(out -> out.writeUInt64(3, -1L))))).contains(new LoadReport(0, 0, 0x1p64, 0));
  }

  @Test
  void commaSeparatedValuesMergeWithTheLaterFieldWinning() {
    String a = b64(proto(out -> {
      out.writeDouble(1, 0.5);
      out.writeDouble(7, 1);
    }));
    String b = b64(proto(out -> out.writeDouble(1, 0.2)));
    assertThat(OrcaBinary.parse(a + "," + b)).contains(new LoadReport(0.2, 0, 0, 1));
    assertThat(OrcaBinary.parse(b + ", " + a)).contains(new LoadReport(0.5, 0, 0, 1));
  }

  @Test
  void unknownFieldsOfEveryWireTypeAreSkipped() {
    byte[] b = proto(out -> {
      out.writeFixed32(100, 7);
      out.writeUInt64(101, Long.MAX_VALUE);
      out.writeBytes(102, com.google.protobuf.ByteString.copyFromUtf8("ignored \u0009\u0001 bytes"));
      out.writeFixed64(103, -1);
      out.writeDouble(1, 0.6);
      out.writeString(536_870_911, "highest field number");
    });
    assertThat(OrcaBinary.parse(b64(b))).contains(new LoadReport(0.6, 0, 0, 0));
    assertThat(OrcaBinary.parse(b64(new byte[0]) + "," + b64(b))).contains(new LoadReport(0.6, 0, 0, 0));
  }

  @Test
  void everyTruncationOfAFullReportIsAProblemNotAnException() {
    byte[] full = full();
    int reports = 0;
    for (int n = 1; n < full.length; n++) {
      OrcaBinary.Reading r = OrcaBinary.read(b64(Arrays.copyOf(full, n)));
      assertThat(r.report() == null).as("prefix of %d bytes: %s", n, r).isEqualTo(r.problem() != null);
      reports += r.report() == null ? 0 : 1;
    }
    assertThat(reports).as("only cuts at field boundaries parse").isEqualTo(8);
    assertThat(OrcaBinary.read(b64(Arrays.copyOf(full, 5))).problem()).isEqualTo("field truncated at byte 0");
  }

  @Test
  void randomBytesNeverThrowAndGiveEitherAReportOrAProblem() {
    SplitMix64 random = new SplitMix64(23);
    int reports = 0;
    for (int n = 0; n < 20_000; n++) {
      byte[] b = new byte[(int) Long.remainderUnsigned(random.nextLong(), 24)];
      for (int k = 0; k < b.length; k++) {
        b[k] = (byte) random.nextLong();
      }
      OrcaBinary.Reading r = OrcaBinary.read(b64(b));
      assertThat(r.report() == null).as("%s", r).isEqualTo(r.problem() != null);
      reports += r.report() == null ? 0 : 1;
    }
    assertThat(reports).as("some random messages are valid ones").isPositive();
  }

  @Test
  void garbageGivesANamedProblem() {
    assertThat(problem(null)).isEqualTo("empty value");
    assertThat(problem("  ")).isEqualTo("empty value");
    assertThat(problem("not*base64")).isEqualTo("not base64");
    assertThat(problem(b64(new byte[] {0x0A, 0x09, 0x09}))).isEqualTo("field 1 has wire type 2, expected 1");
    assertThat(problem(b64(new byte[] {0x18, 0x01, 0x19}))).isEqualTo("field 3 has wire type 1, expected 0");
    assertThat(problem(b64(new byte[] {0x00, 0x01}))).isEqualTo("field number 0 at byte 0");
    assertThat(problem(b64(new byte[] {0x13}))).isEqualTo("wire type 3 at byte 0");
    assertThat(problem(b64(new byte[] {0x0B}))).isEqualTo("field 1 has wire type 3, expected 1");
    assertThat(problem(b64(new byte[] {(byte) 0xA2, 0x06, 0x05, 1, 2}))).isEqualTo("length-delimited field truncated at byte 0");
    assertThat(problem(b64(new byte[] {(byte) 0xA8, 0x06, (byte) 0x80}))).isEqualTo("varint runs past the end at byte 0");
    byte[] eleven = new byte[12];
    Arrays.fill(eleven, (byte) 0x80);
    eleven[0] = 0x18;
    assertThat(problem(b64(eleven))).isEqualTo("varint runs past the end at byte 0");
    assertThat(problem(b64(proto(out -> out.writeDouble(1, -0.5))))).isEqualTo("field 1 is -0.5, not a non-negative finite number");
    assertThat(problem(b64(proto(out -> out.writeDouble(7, Double.NaN))))).isEqualTo("field 7 is NaN, not a non-negative finite number");
    assertThat(problem(b64(proto(out -> out.writeDouble(9, Double.POSITIVE_INFINITY)))))
        .isEqualTo("field 9 is Infinity, not a non-negative finite number");
    assertThat(OrcaParser.parse("BIN not*base64")).isEmpty();
  }

  private static String problem(String value) {
    OrcaBinary.Reading r = OrcaBinary.read(value);
    assertThat(r.report()).isNull();
    return r.problem();
  }
}
