package dev.fairway.balancer;

/**
 * Reads the protobuf wire format field by field, without generated code: enough for the few
 * small messages Fairway reads (ORCA load reports, gRPC health answers). It never throws: the
 * first problem stops it and is kept, naming the byte where the field it was reading starts.
 *
 * <p>Example: over {@code 08 01 12 01 41}, {@code tag()} is {@code 8} (field 1, varint),
 * {@code varint()} is {@code 1}, {@code tag()} is {@code 0x12} (field 2, length-delimited),
 * {@code skip(2)} passes {@code 41}, and {@code more()} is false; over {@code 08 80},
 * {@code varint()} after the tag leaves {@code problem()} = {@code "varint runs past the end at byte 0"}.
 */
public final class ProtoReader {
  public static final int VARINT = 0;
  public static final int FIXED64 = 1;
  public static final int LENGTH = 2;
  public static final int FIXED32 = 5;

  private final byte[] b;
  private int i;
  private int fieldStart;
  private String problem;

  public ProtoReader(byte[] bytes) {
    this.b = bytes;
  }

  /** Whether another field follows and nothing went wrong. */
  public boolean more() {
    return problem == null && i < b.length;
  }

  /** The first problem met, or {@code null}. */
  public String problem() {
    return problem;
  }

  /** Records a problem of the caller's (a value out of range), if none came before. */
  public void fail(String what) {
    if (problem == null) {
      problem = what;
    }
  }

  /** Where the current field starts. */
  public int fieldStart() {
    return fieldStart;
  }

  /** The next field's tag (field number times 8 plus wire type); -1 with a problem if invalid. */
  public long tag() {
    fieldStart = i;
    long tag = varint();
    if (problem == null && (tag >>> 3 == 0 || tag >>> 3 > 0x1FFF_FFFF)) {
      fail("field number " + (tag >>> 3) + " at byte " + fieldStart);
    }
    return problem == null ? tag : -1;
  }

  /** A varint of up to ten bytes; 0 with a problem if it runs past the end. */
  public long varint() {
    long result = 0;
    for (int shift = 0; shift < 64 && i < b.length; shift += 7) {
      byte x = b[i++];
      result |= (long) (x & 0x7F) << shift;
      if (x >= 0) {
        return result;
      }
    }
    fail("varint runs past the end at byte " + fieldStart);
    i = b.length;
    return 0;
  }

  /** A little-endian 64-bit value; 0 with a problem if fewer than 8 bytes are left. */
  public long fixed64() {
    if (b.length - i < 8) {
      fail("field truncated at byte " + fieldStart);
      i = b.length;
      return 0;
    }
    long r = 0;
    for (int k = 7; k >= 0; k--) {
      r = (r << 8) | (b[i + k] & 0xFF);
    }
    i += 8;
    return r;
  }

  /** Passes over a field's value of wire type {@code wire}; groups (3, 4) and 6, 7 are problems. */
  public void skip(int wire) {
    switch (wire) {
      case VARINT -> varint();
      case FIXED64 -> fixed64();
      case FIXED32 -> advance(4);
      case LENGTH -> {
        long n = varint();
        if (problem == null && (n < 0 || n > b.length - i)) {
          fail("length-delimited field truncated at byte " + fieldStart);
        } else {
          advance((int) n);
        }
      }
      default -> fail("wire type " + wire + " at byte " + fieldStart);
    }
  }

  private void advance(int n) {
    if (b.length - i < n) {
      fail("field truncated at byte " + fieldStart);
      i = b.length;
    } else {
      i += n;
    }
  }
}
