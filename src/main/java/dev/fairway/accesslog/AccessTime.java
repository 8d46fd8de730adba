package dev.fairway.accesslog;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Writes an access-log time, formatting the date and time of day once a second and only the
 * milliseconds for each line. Not thread-safe: one per writer.
 *
 * <p>Example: for {@code 2026-11-22T01:00:00.250Z}, {@link #appendIso} appends
 * {@code 2026-11-22T01:00:00.250Z} (as {@link Instant#toString()}, which leaves out {@code .000})
 * and {@link #appendClf} appends {@code 22/Nov/2026:01:00:00 +0000}; a second line in the same
 * second reuses both texts.
 */
public final class AccessTime {
  private static final DateTimeFormatter ISO_SECOND = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss", Locale.ROOT)
      .withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter CLF = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT)
      .withZone(ZoneOffset.UTC);

  private long second = Long.MIN_VALUE;
  private String iso;
  private String clf;

  /** Appends the instant {@code epochMillis} as {@link Instant#toString()} does. */
  void appendIso(StringBuilder out, long epochMillis) {
    at(epochMillis);
    out.append(iso);
    int millis = (int) Math.floorMod(epochMillis, 1000L);
    if (millis != 0) {
      out.append('.').append((char) ('0' + millis / 100)).append((char) ('0' + millis / 10 % 10))
          .append((char) ('0' + millis % 10));
    }
    out.append('Z');
  }

  /** Appends the second of {@code epochMillis} in Apache's common log format, in UTC. */
  void appendClf(StringBuilder out, long epochMillis) {
    at(epochMillis);
    out.append(clf);
  }

  private void at(long epochMillis) {
    long s = Math.floorDiv(epochMillis, 1000L);
    if (s != second) {
      Instant t = Instant.ofEpochSecond(s);
      iso = ISO_SECOND.format(t);
      clf = CLF.format(t);
      second = s;
    }
  }
}
