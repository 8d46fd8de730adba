package dev.fairway.metrics;

/**
 * Reads a size field of Linux's {@code /proc/self/status}.
 *
 * <p>Example: {@code ProcStatus.bytes("Name:\tjava\nVmHWM:\t  261480 kB\nVmRSS:\t  254380 kB\n", "VmRSS")}
 * is {@code 260485120} (254,380 × 1,024); a field that is missing or not in kB gives -1.
 */
public final class ProcStatus {
  private ProcStatus() {
  }

  /** The value of {@code field} (such as {@code VmRSS}) in {@code status} in bytes, or -1 if it has none. */
  public static long bytes(String status, String field) {
    String prefix = field + ":";
    for (String line : status.split("\n")) {
      if (!line.startsWith(prefix)) {
        continue;
      }
      String[] parts = line.substring(prefix.length()).trim().split("\\s+");
      if (parts.length != 2 || !parts[1].equals("kB")) {
        return -1;
      }
      try {
        return Long.parseLong(parts[0]) * 1024;
      } catch (NumberFormatException e) {
        return -1;
      }
    }
    return -1;
  }
}
