package dev.fairway.table;

/**
 * What a config reload changed.
 *
 * <p>Example: a file that adds b3 and lowers b1's capacity gives
 * {@code ReloadSummary[version=2, hash=1a2b3c4d, added=1, changed=1, draining=0]}.
 *
 * @param version  the config version now live (the first config is 1)
 * @param hash     the short hash of its text
 * @param added    backends created
 * @param changed  backends whose config or health check changed in place
 * @param draining backends that left every service and now drain
 */
public record ReloadSummary(int version, String hash, int added, int changed, int draining) {
}
