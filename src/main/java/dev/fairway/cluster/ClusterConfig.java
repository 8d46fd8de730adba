package dev.fairway.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.FileSystemXmlConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.spi.merge.LatestUpdateMergePolicy;
import java.io.FileNotFoundException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Finds and reads the Hazelcast configuration of cluster mode.
 *
 * <p>Example: {@code java -jar fairway.jar -cluster} reads {@code conf/cluster.xml};
 * {@code -cluster-conf /etc/fairway/cluster.xml} or {@code FAIRWAY_CLUSTER_CONF=...} reads
 * another file. A missing or invalid file is reported as one line naming the file.
 */
public final class ClusterConfig {
  /** Environment variable naming the Hazelcast XML file when {@code -cluster-conf} is absent. */
  public static final String ENV = "FAIRWAY_CLUSTER_CONF";
  /** The file read when neither {@code -cluster-conf} nor {@link #ENV} names one. */
  public static final Path DEFAULT = Path.of("conf", "cluster.xml");

  private ClusterConfig() {
  }

  /** A problem with the cluster configuration file, as one line. */
  public static final class Invalid extends Exception {
    public Invalid(String message) {
      super(message, null, false, false);
    }
  }

  /** The file to read: {@code fromCommandLine} if given, else {@link #ENV}, else {@link #DEFAULT}. */
  public static Path resolve(Path fromCommandLine, Map<String, String> env) {
    if (fromCommandLine != null) {
      return fromCommandLine;
    }
    String fromEnv = env.get(ENV);
    return fromEnv != null && !fromEnv.isBlank() ? Path.of(fromEnv) : DEFAULT;
  }

  /**
   * Reads the Hazelcast XML file. Hazelcast logs through SLF4J (so logback's {@code com.hazelcast}
   * level applies) unless {@code -Dhazelcast.logging.type} says otherwise.
   */
  public static Config load(Path path) throws Invalid {
    if (System.getProperty("hazelcast.logging.type") == null) {
      System.setProperty("hazelcast.logging.type", "slf4j");
    }
    try {
      Config config = new FileSystemXmlConfig(path.toFile());
      config.setProperty("hazelcast.logging.type", System.getProperty("hazelcast.logging.type"));
      return withRuntimeMerge(config);
    } catch (FileNotFoundException e) {
      throw new Invalid(path + ": file not found; expected a Hazelcast XML configuration");
    } catch (RuntimeException e) {
      throw new Invalid(path + ": not a valid Hazelcast configuration (" + oneLine(e) + ")");
    }
  }

  /**
   * After a split, the two sides' records of the same backend merge by their last update, so the
   * later runtime change wins on both sides (Hazelcast's default keeps the larger side's entry,
   * however old). Set here, not in the XML, so that an operator's own file cannot lose it.
   */
  static Config withRuntimeMerge(Config config) {
    MapConfig runtime = config.getMapConfig(RuntimeState.MAP);
    runtime.setPerEntryStatsEnabled(true);
    runtime.getMergePolicyConfig().setPolicy(LatestUpdateMergePolicy.class.getName());
    return config;
  }

  private static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.toString() : e.getMessage();
    return m.replaceAll("\\s+", " ").trim();
  }
}
