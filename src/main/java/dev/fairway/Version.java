package dev.fairway;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Fairway's own version, for {@code --version}.
 *
 * <p>Example: built from a pom with {@code <version>0.1.0-SNAPSHOT</version>}, {@code Version.current()} is
 * {@code "0.1.0-SNAPSHOT"}. Maven writes it into {@code dev/fairway/version.properties} (a filtered resource),
 * so it is the same in the shaded jar and on a test classpath; {@code "unknown"} if that file is missing.
 */
final class Version {
  private static final String RESOURCE = "/dev/fairway/version.properties";

  private Version() {
  }

  static String current() {
    try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
