package dev.fairway.proxy.wire;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Field lines written straight into a head's bytes, the names Fairway adds encoded once.
 *
 * <p>Example: {@code write(out, X_FORWARDED_FOR, "10.0.0.7")} appends
 * {@code "X-Forwarded-For: 10.0.0.7\r\n"}; {@code write(out, "X-Custom", "v")} does the same for
 * a name known only at run time.
 */
final class FieldLines {
  static final byte[] X_FORWARDED_FOR = name("X-Forwarded-For");
  static final byte[] X_FORWARDED_PROTO = name("X-Forwarded-Proto");
  static final byte[] X_FORWARDED_HOST = name("X-Forwarded-Host");
  static final byte[] FORWARDED = name("Forwarded");
  static final byte[] VIA = name("Via");
  static final byte[] HOST = name("Host");

  private FieldLines() {
  }

  /** {@code name}, a colon and a space, as bytes. */
  static byte[] name(String name) {
    return (name + ": ").getBytes(StandardCharsets.US_ASCII);
  }

  /** Appends {@code name} (made by {@link #name}), {@code value} and CRLF. */
  static void write(ByteBuf out, byte[] name, String value) {
    out.writeBytes(name);
    value(out, value);
    end(out);
  }

  /** Appends {@code name: value} and CRLF. */
  static void write(ByteBuf out, String name, String value) {
    out.writeCharSequence(name, StandardCharsets.US_ASCII);
    out.writeByte(':').writeByte(' ');
    value(out, value);
    end(out);
  }

  /** Appends a value's characters as Latin-1 bytes. */
  static void value(ByteBuf out, String value) {
    out.writeCharSequence(value, StandardCharsets.ISO_8859_1);
  }

  /** Ends a field line. */
  static void end(ByteBuf out) {
    out.writeByte('\r').writeByte('\n');
  }
}
