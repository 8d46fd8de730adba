package dev.fairway.proxy.wire;

import dev.fairway.config.HeaderEdit;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Applies a service's {@link HeaderEdit} to a message head in any of its shapes: a header map,
 * head bytes being copied, or HTTP/2 fields. Remove, then set, then add; names in any case. The
 * fields an edit can name are never ones Fairway itself writes (the config rejects those), so
 * the edit comes after the {@link ForwardingRules} and does not interfere with them.
 *
 * <p>Example: the edit {@code set X-Env: prod, add X-Tag: a, remove Cookie} turns the fields
 * {@code Cookie: s=1, x-env: dev, Accept: *}{@code /*} into {@code Accept: *}{@code /*,
 * X-Env: prod, X-Tag: a}.
 */
public final class FieldEdits {
  private FieldEdits() {
  }

  /** Edits a header map in place. */
  public static void apply(HttpHeaders h, HeaderEdit e) {
    List<String> remove = e.remove();
    for (int i = 0; i < remove.size(); i++) {
      h.remove(remove.get(i));
    }
    for (Map.Entry<String, String> f : e.set().entrySet()) {
      h.set(f.getKey(), f.getValue());
    }
    for (Map.Entry<String, String> f : e.add().entrySet()) {
      h.add(f.getKey(), f.getValue());
    }
  }

  /** Edits HTTP/2 fields in place, names in lower case. */
  public static void apply(Http2Headers h, HeaderEdit e) {
    List<String> remove = e.remove();
    for (int i = 0; i < remove.size(); i++) {
      h.remove(AsciiString.of(remove.get(i)).toLowerCase());
    }
    for (String name : e.set().keySet()) {
      h.remove(AsciiString.of(name).toLowerCase());
    }
    addTo(h, e);
  }

  /** Whether the field named {@code h[s, s + n)} is left out: removed, or replaced by a set value. */
  static boolean drops(HeaderEdit e, byte[] h, int s, int n) {
    List<String> remove = e.remove();
    for (int i = 0; i < remove.size(); i++) {
      if (same(remove.get(i), h, s, n)) {
        return true;
      }
    }
    for (String name : e.set().keySet()) {
      if (same(name, h, s, n)) {
        return true;
      }
    }
    return false;
  }

  /** Writes the set and added fields as head lines, after the fields {@link #drops} let through. */
  static void write(ByteBuf out, HeaderEdit e) {
    write(out, e.set());
    write(out, e.add());
  }

  private static void write(ByteBuf out, Map<String, String> fields) {
    for (Map.Entry<String, String> f : fields.entrySet()) {
      out.writeCharSequence(f.getKey(), StandardCharsets.US_ASCII);
      out.writeByte(':').writeByte(' ');
      out.writeCharSequence(f.getValue(), StandardCharsets.ISO_8859_1);
      out.writeByte('\r').writeByte('\n');
    }
  }

  /** Adds the set and added fields to HTTP/2 fields, names in lower case. */
  static void addTo(Http2Headers out, HeaderEdit e) {
    for (Map.Entry<String, String> f : e.set().entrySet()) {
      out.add(AsciiString.of(f.getKey()).toLowerCase(), f.getValue());
    }
    for (Map.Entry<String, String> f : e.add().entrySet()) {
      out.add(AsciiString.of(f.getKey()).toLowerCase(), f.getValue());
    }
  }

  /** Whether {@code name} is {@code h[s, s + n)}, in any case (ASCII). */
  private static boolean same(String name, byte[] h, int s, int n) {
    if (name.length() != n) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (lower(name.charAt(i)) != lower((char) (h[s + i] & 0xff))) {
        return false;
      }
    }
    return true;
  }

  private static char lower(char c) {
    return c >= 'A' && c <= 'Z' ? (char) (c + 32) : c;
  }
}
