package dev.fairway.config;

/**
 * The per-request access log, written to the SLF4J logger {@code fairway.access}.
 *
 * <p>Example: {@code {"enabled": true, "format": "json"}} writes one JSON object per request;
 * {@code "combined"} writes Apache's combined format followed by Fairway's fields.
 *
 * @param enabled whether a line is written per request (off by default)
 * @param format  {@code json} or {@code combined}
 */
public record AccessLogSettings(boolean enabled, String format) {
  /** The formats {@code format} may name. */
  public static final java.util.List<String> FORMATS = java.util.List.of("json", "combined");
}
