package dev.fairway.control;

import dev.fairway.config.ConfigException;
import dev.fairway.config.ConfigParser;
import dev.fairway.config.FairwayConfig;
import io.vertx.config.ConfigRetriever;
import io.vertx.config.ConfigRetrieverOptions;
import io.vertx.config.ConfigStoreOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the config file (vertx-config file store, read raw, scanned every
 * {@code reload.scanPeriodMs}) and hands every valid new version to the balancer; an invalid one
 * is logged with the same per-problem lines as at start-up and the running config stays.
 *
 * <p>Example: an operator raises {@code b1}'s capacity from 3 to 5 and saves; within one scan
 * period the log reads {@code config version 2 (sha 3f2a9c1e) is live} and new requests may use
 * five slots. Saving half-written JSON logs {@code config version not applied:
 * $: not valid JSON (...)} and changes nothing.
 */
public final class ConfigReloader {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigReloader.class);

  private final Path path;
  private final Map<String, String> env;
  private ConfigRetriever retriever;

  public ConfigReloader(Path path, Map<String, String> env) {
    this.path = path;
    this.env = env;
  }

  /**
   * Starts watching.
   *
   * @param onValid called on the caller's context with each valid new config and its short hash
   */
  public void start(Vertx vertx, long scanPeriodMs, BiConsumer<FairwayConfig, String> onValid) {
    ConfigStoreOptions file = new ConfigStoreOptions().setType("file").setFormat("raw")
        .setConfig(new JsonObject().put("path", path.toString()).put("raw.key", "text").put("raw.type", "string"));
    retriever = ConfigRetriever.create(vertx, new ConfigRetrieverOptions().setScanPeriod(scanPeriodMs)
        .setIncludeDefaultStores(false).addStore(file));
    retriever.listen(change -> {
      String text = change.getNewConfiguration().getString("text");
      if (text == null) {
        return;
      }
      String hash = shortHash(text);
      try {
        onValid.accept(parse(text, env), hash);
      } catch (ConfigException e) {
        LOG.warn("config {} (sha {}) not applied; the running config stays:", path, hash);
        e.problems().forEach(p -> LOG.warn("  {}", p));
      }
    });
  }

  public void stop() {
    if (retriever != null) {
      retriever.close();
    }
  }

  /** Decodes and validates config text exactly as at start-up. */
  public static FairwayConfig parse(String text, Map<String, String> env) throws ConfigException {
    Object root;
    try {
      root = Json.decodeValue(text);
    } catch (DecodeException e) {
      throw new ConfigException(List.of("$: not valid JSON (" + e.getMessage().replace('\n', ' ') + ")"));
    }
    return ConfigParser.parse(JsonValues.toPlain(root), env);
  }

  /** First 8 hex digits of the SHA-256 of the text: names a config version in logs and the API. */
  public static String shortHash(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
