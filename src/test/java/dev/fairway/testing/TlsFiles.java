package dev.fairway.testing;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The TLS test files of {@code src/test/resources/tls} (made by its {@code gen.sh}) and the
 * {@code proxy.tls} objects that use them.
 *
 * <p>Example: {@code TlsFiles.tls("a", "wild")} is {@code {"port": 0, "certificates":
 * [{"certPath": ".../a.pem", "keyPath": ".../a.key"}, {"certPath": ".../wild.pem", ...}]}}.
 */
public final class TlsFiles {
  private static final Path DIR = Path.of("src", "test", "resources", "tls").toAbsolutePath();

  private TlsFiles() {
  }

  /** The absolute path of a file of the folder, such as {@code "a.pem"}. */
  public static String path(String name) {
    return DIR.resolve(name).toString();
  }

  /**
   * Puts {@code bytes} in {@code target} the way an operator renews a file: written next to it,
   * then renamed over it, so a reader sees the old contents or the new, never half of them.
   */
  public static void replaceAtomically(Path target, byte[] bytes) throws IOException {
    Path tmp = Files.createTempFile(target.toAbsolutePath().getParent(), "new", ".tmp");
    Files.write(tmp, bytes);
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** {@code {"certPath": NAME.pem, "keyPath": NAME.key}}. */
  public static JsonObject certificate(String name) {
    return new JsonObject().put("certPath", path(name + ".pem")).put("keyPath", path(name + ".key"));
  }

  /** A {@code proxy.tls} object on port 0 with these certificates, the first the default. */
  public static JsonObject tls(String... names) {
    JsonArray certificates = new JsonArray();
    for (String n : names) {
      certificates.add(certificate(n));
    }
    return new JsonObject().put("port", 0).put("certificates", certificates);
  }
}
