package dev.fairway;

import dev.fairway.config.FairwayConfig;
import java.nio.file.Path;

/**
 * The {@code --check} summary of a configuration that parsed and validated.
 *
 * <p>Example: a file {@code conf/config.json} with services {@code api} (2 backends) and {@code web} (1 backend)
 * gives {@code "configuration ok: conf/config.json (2 services, 3 backends)"}. Validation itself is
 * {@link Main#load}, the same as at start-up, so a file that passes here starts (ports aside).
 */
final class ConfigCheck {
  private ConfigCheck() {
  }

  static String summary(Path path, FairwayConfig config) {
    int backends = config.services().stream().mapToInt(s -> s.backends().size()).sum();
    return "configuration ok: " + path + " (" + count(config.services().size(), "service") + ", "
        + count(backends, "backend") + ")";
  }

  private static String count(int n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

}
