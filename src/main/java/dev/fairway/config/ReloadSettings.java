package dev.fairway.config;

/**
 * How often the config file is checked for changes.
 *
 * <p>Example: {@code {"scanPeriodMs": 2000}} applies a saved change within about two seconds;
 * {@code 0} turns hot reload off.
 *
 * @param scanPeriodMs time between checks of the file; 0 means never
 */
public record ReloadSettings(long scanPeriodMs) {
}
