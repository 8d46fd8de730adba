package dev.fairway.proxy.wire;

import java.util.Arrays;

/**
 * The few fields a {@link RawRequest}'s backend head carries in place of the client's: the
 * remaining deadline, the resolved criticality, the attempt number. The client's fields of those
 * names are left out of the head and these are written after the forwarded ones.
 *
 * <p>Example: after {@code put("grpc-timeout", "70m")} and {@code put("x-fairway-attempt", "2")},
 * a head with {@code grpc-timeout: 100m} is forwarded with {@code grpc-timeout: 70m} and
 * {@code x-fairway-attempt: 2}; {@code put("grpc-timeout", null)} would drop the field.
 */
final class ForwardedFields {
  private String[] names = new String[4];
  private String[] values = new String[4];
  private int size;

  /** Replaces the fields named {@code lowerName} by {@code value}, or drops them ({@code null}). */
  void put(String lowerName, String value) {
    for (int i = 0; i < size; i++) {
      if (names[i].equals(lowerName)) {
        values[i] = value;
        return;
      }
    }
    if (size == names.length) {
      names = Arrays.copyOf(names, size * 2);
      values = Arrays.copyOf(values, size * 2);
    }
    names[size] = lowerName;
    values[size++] = value;
  }

  int size() {
    return size;
  }

  String name(int i) {
    return names[i];
  }

  String value(int i) {
    return values[i];
  }

  /** Whether the field name at {@code h[s .. s + length)} is one of those replaced (case-insensitive). */
  boolean names(byte[] h, int s, int length) {
    for (int i = 0; i < size; i++) {
      if (names[i].length() == length && HeadBytes.nameIs(h, s, names[i])) {
        return true;
      }
    }
    return false;
  }
}
